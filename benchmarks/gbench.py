"""Running a Google Benchmark binary for its JSON report, across library versions: before 1.8
--benchmark_min_time takes plain seconds, from 1.8 on it wants a unit ("0.2s")."""
import functools
import json
import subprocess


@functools.lru_cache(maxsize=None)
def _seconds_suffix(binary):
    probe = subprocess.run([binary, "--benchmark_min_time=0.001s", "--benchmark_filter=^$"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return "" if probe.returncode != 0 or "expected to be a double" in probe.stderr else "s"


def run(binary, min_time, benchmark_filter=None):
    """The parsed JSON report of `binary`, each benchmark run for at least `min_time` seconds."""
    args = [binary, "--benchmark_format=json", f"--benchmark_min_time={min_time}{_seconds_suffix(binary)}"]
    if benchmark_filter:
        args.append(f"--benchmark_filter={benchmark_filter}")
    return json.loads(subprocess.run(args, stdout=subprocess.PIPE, text=True, check=True).stdout)
