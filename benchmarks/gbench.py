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


def run(binary, min_time, benchmark_filter=None, repetitions=1):
    """The parsed JSON report of `binary`, each benchmark run for at least `min_time` seconds.
    With repetitions > 1 the runs of all benchmarks are interleaved in random order (so that a
    slow phase of the machine does not land on one benchmark) and each row is the median of its
    repetitions, under its plain name."""
    args = [binary, "--benchmark_format=json", f"--benchmark_min_time={min_time}{_seconds_suffix(binary)}"]
    if benchmark_filter:
        args.append(f"--benchmark_filter={benchmark_filter}")
    if repetitions > 1:
        args += [f"--benchmark_repetitions={repetitions}", "--benchmark_enable_random_interleaving=true",
                 "--benchmark_report_aggregates_only=true"]
    report = json.loads(subprocess.run(args, stdout=subprocess.PIPE, text=True, check=True).stdout)
    if repetitions > 1:
        report["benchmarks"] = [dict(row, name=row["run_name"]) for row in report["benchmarks"]
                                if row.get("aggregate_name") == "median"]
    return report
