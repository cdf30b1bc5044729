"""Runs the transfer benchmarks briefly and checks every strategy's copies per call against its
definition (expected_transfers.py): lapis moves the theoretical minimum, naive what it says.
Prints the ratio of bytes moved per call, naive / lapis. Usage: check_transfers.py TRANSFERS_BINARY"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import gbench  # noqa: E402
from expected_transfers import per_call  # noqa: E402

FIELDS = ("h2d_count", "h2d_bytes", "d2h_count", "d2h_bytes")
WORKLOADS = "gemm_no_alloc|batched_gemm_no_alloc|spmv_noalloc|spmm_dcsr_noalloc|chained_pipeline"


def main(binary):
    report = gbench.run(binary, 0.001, f"^({WORKLOADS})/")
    aliased = report["context"].get("lapis_device", "").startswith("simulated")
    failures = 0
    for row in report["benchmarks"]:
        workload, strategy, size = row["name"].split("/")
        measured = tuple(round(row[f]) for f in FIELDS)
        naive, minimum = per_call(workload, int(size))
        if strategy == "naive":
            expected = naive
        elif strategy == "kokkos_dualview" and aliased:
            expected = (0, 0, 0, 0)  # Kokkos::DualView shares host memory on a CPU build
        else:
            expected = minimum
        ok = measured == expected
        failures += not ok
        ratio = ""
        if strategy == "lapis":
            ratio = f"  naive/lapis bytes per call: {(naive[1] + naive[3]) / (minimum[1] + minimum[3]):.1f}x"
        print(f"{'ok  ' if ok else 'FAIL'} {row['name']:<44} {measured}" + ("" if ok else f" expected {expected}") + ratio)
    print(f"{len(report['benchmarks']) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
