"""Runs a function on threads of its own and waits for them all: the tests' and the fuzzer's threads."""
import threading


def run_on_threads(target, count):
    threads = [threading.Thread(target=target) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
