"""The copies per call that each strategy must make in benchmarks/transfers.cpp, from the
workloads' definitions: naive uploads every input of every call and downloads every call's output;
lapis (and kokkos_dualview, where its sides are apart) uploads nothing once inputs are resident and
downloads the final result once per host read."""

DOUBLE, INT = 8, 4
PER_ROW = 8        # entries per row of the banded sparse matrices
BATCH = 8          # batched_gemm's batch
WIDTH = 16         # columns of spmm_dcsr's dense operand


def per_call(workload, n):
    """(naive (h2d_count, h2d_bytes, d2h_count, d2h_bytes), minimum (h2d..., d2h...))."""
    if workload == "gemm_no_alloc":
        inputs, outputs = [DOUBLE * n * n] * 2, [DOUBLE * n * n]
        final = DOUBLE * n * n
    elif workload == "batched_gemm_no_alloc":
        inputs, outputs = [DOUBLE * BATCH * n * n] * 2, [DOUBLE * BATCH * n * n]
        final = DOUBLE * BATCH * n * n
    elif workload == "spmv_noalloc":
        inputs = [INT * (n + 1), INT * PER_ROW * n, DOUBLE * PER_ROW * n, DOUBLE * n]
        outputs = [DOUBLE * n]
        final = DOUBLE * n
    elif workload == "spmm_dcsr_noalloc":
        stored = (n + 1) // 2
        inputs = [INT * stored, INT * (stored + 1), INT * PER_ROW * stored, DOUBLE * PER_ROW * stored,
                  DOUBLE * n * WIDTH]
        outputs = [DOUBLE * n * WIDTH]
        final = DOUBLE * n * WIDTH
    elif workload == "chained_pipeline":
        # gemm(a, b) -> t; matadd(t, c) -> u; gemm(u, d) -> y: two inputs and one output per call
        inputs, outputs = [DOUBLE * n * n] * 6, [DOUBLE * n * n] * 3
        final = DOUBLE * n * n
    else:
        raise KeyError(workload)
    naive = (len(inputs), sum(inputs), len(outputs), sum(outputs))
    return naive, (0, 0, 1, final)
