"""Runs every example on the default and the simulated device and prints one line each: the copies
lapis made and whether the result matched numpy. Exits non-zero if any example failed.
Usage: run_examples.py [DEVICE ...]   (default: default simulated)"""
import os
import pathlib
import re
import subprocess
import sys
import time

EXAMPLES_DIR = pathlib.Path(__file__).resolve().parent.parent / "examples"
# single-file examples, and those of several files (a folder with its run.py)
EXAMPLES = sorted(EXAMPLES_DIR.glob("[!_]*.py")) + sorted(EXAMPLES_DIR.glob("*/run.py"))
COPIES = re.compile(r"host->device: (\d+) copies, (\d+) bytes; device->host: (\d+) copies, (\d+) bytes")


def main(devices):
    failed = 0
    started = time.monotonic()
    print(f"{'example':<24} {'device':<10} {'h2d':>4} {'h2d bytes':>10} {'d2h':>4} {'d2h bytes':>10}  result")
    for device in devices:
        for script in EXAMPLES:
            run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                                 env=dict(os.environ, LAPIS_DEVICE=device))
            copies = COPIES.findall(run.stdout)
            ok = run.returncode == 0 and run.stdout.rstrip().endswith("OK")
            failed += not ok
            h2d, h2d_bytes, d2h, d2h_bytes = copies[-1] if copies else ("?",) * 4
            name = script.relative_to(EXAMPLES_DIR).with_suffix("").as_posix().removesuffix("/run")
            print(f"{name:<24} {device:<10} {h2d:>4} {h2d_bytes:>10} {d2h:>4} {d2h_bytes:>10}  "
                  f"{'OK' if ok else 'FAILED'}")
            if not ok:
                print(run.stdout + run.stderr)
    runs = len(EXAMPLES) * len(devices)
    verdict = "OK" if not failed else f"{failed} FAILED"
    print(f"examples: {runs - failed} of {runs} runs OK ({len(EXAMPLES)} examples on {len(devices)} devices, "
          f"{time.monotonic() - started:.0f} s): {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["default", "simulated"]))
