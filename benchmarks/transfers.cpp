// The host<->device copies each strategy makes (per call, counted through Kokkos's deep_copy
// callback) and its time, for the no-alloc workloads and a chained pipeline, over a sweep of sizes;
// and the bandwidth of a sync both ways, pageable vs pinned, against raw Kokkos deep_copy and cudaMemcpy.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "lapis/kernels.hpp"
#include "lapis/runtime/runtime.hpp"
#include "strategies.hpp"
#include "transfer_counter.hpp"

namespace lapis::bench {
namespace {

template <class DataType>
using HostView = Kokkos::View<DataType, Kokkos::LayoutRight, Kokkos::HostSpace>;

template <class View>
View random_view(View v, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  auto* p = v.data();
  for (std::size_t i = 0; i < v.span(); ++i) p[i] = dist(gen);
  return v;
}

// Sparse structure: `rows` rows, a band of `per_row` entries from the diagonal (in CSR), or only
// every other row stored (DCSR).
struct Sparse {
  HostView<int*> rows, indptr, indices;
  HostView<double*> data;
};

Sparse banded(std::int64_t rows, std::int64_t columns, int per_row, bool every_other_row) {
  const std::int64_t stored = every_other_row ? (rows + 1) / 2 : rows;
  Sparse s{HostView<int*>("rows", stored), HostView<int*>("indptr", stored + 1),
           HostView<int*>("indices", stored * per_row), HostView<double*>("data", stored * per_row)};
  for (std::int64_t r = 0; r < stored; ++r) {
    const std::int64_t row = every_other_row ? 2 * r : r;
    s.rows(r) = row;
    s.indptr(r + 1) = (r + 1) * per_row;
    for (int k = 0; k < per_row; ++k) s.indices(r * per_row + k) = (row + k) % columns;
  }
  random_view(s.data, 7);
  return s;
}

// Per-call copy counts (over the timed iterations only) and the problem size.
void report(benchmark::State& state, const Copies& before, std::int64_t size) {
  const Copies after = TransferCounter::instance().read();
  const auto avg = benchmark::Counter::kAvgIterations;
  state.counters["h2d_count"] = benchmark::Counter(double(after.h2d_count - before.h2d_count), avg);
  state.counters["h2d_bytes"] = benchmark::Counter(double(after.h2d_bytes - before.h2d_bytes), avg);
  state.counters["d2h_count"] = benchmark::Counter(double(after.d2h_count - before.d2h_count), avg);
  state.counters["d2h_bytes"] = benchmark::Counter(double(after.d2h_bytes - before.d2h_bytes), avg);
  state.counters["size"] = double(size);
}

// Runs `call(exec)` once untimed (first uploads of resident inputs are set-up, not per-call cost),
// then times it and reports the copies per call.
template <class Call>
void measure(benchmark::State& state, std::int64_t size, Call&& call) {
  const ExecutionSpace exec;
  call(exec);
  Kokkos::fence();
  const Copies before = TransferCounter::instance().read();
  for (auto _ : state) {
    call(exec);
    Kokkos::fence();
  }
  report(state, before, size);
}

template <template <class> class Array>
void gemm_no_alloc(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  Array<double**> a(random_view(HostView<double**>("a", n, n), 1)), b(random_view(HostView<double**>("b", n, n), 2));
  Array<double**> c(HostView<double**>("c", n, n));
  measure(state, n, [&](const ExecutionSpace& exec) {
    kernels::gemm(exec, a.in(), b.in(), c.out());
    c.after_call();
    c.read_on_host();
  });
}

template <template <class> class Array>
void batched_gemm_no_alloc(benchmark::State& state) {
  const std::int64_t n = state.range(0), batch = 8;
  Array<double***> a(random_view(HostView<double***>("a", batch, n, n), 1));
  Array<double***> b(random_view(HostView<double***>("b", batch, n, n), 2));
  Array<double***> c(HostView<double***>("c", batch, n, n));
  measure(state, n, [&](const ExecutionSpace& exec) {
    kernels::batched_gemm(exec, a.in(), b.in(), c.out());
    c.after_call();
    c.read_on_host();
  });
}

template <template <class> class Array>
void spmv_noalloc(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Sparse s = banded(n, n, 8, false);
  Array<int*> indptr(s.indptr), indices(s.indices);
  Array<double*> data(s.data), x(random_view(HostView<double*>("x", n), 3)), y(HostView<double*>("y", n));
  measure(state, n, [&](const ExecutionSpace& exec) {
    auto p = indptr.in();
    auto j = indices.in();
    kernels::spmv_csr(exec, p, j, data.in(), x.in(), y.out());
    y.after_call();
    y.read_on_host();
  });
}

template <template <class> class Array>
void spmm_dcsr_noalloc(benchmark::State& state) {
  const std::int64_t n = state.range(0), width = 16;
  const Sparse s = banded(n, n, 8, true);
  Array<int*> rows(s.rows), indptr(s.indptr), indices(s.indices);
  Array<double*> data(s.data);
  Array<double**> b(random_view(HostView<double**>("b", n, width), 4)), c(HostView<double**>("c", n, width));
  measure(state, n, [&](const ExecutionSpace& exec) {
    auto r = rows.in();
    auto p = indptr.in();
    auto j = indices.in();
    kernels::spmm_dcsr(exec, r, p, j, data.in(), b.in(), c.out());
    c.after_call();
    c.read_on_host();
  });
}

// gemm -> matadd -> gemm with one host read of the final result.
template <template <class> class Array>
void chained_pipeline(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  Array<double**> a(random_view(HostView<double**>("a", n, n), 1)), b(random_view(HostView<double**>("b", n, n), 2));
  Array<double**> c(random_view(HostView<double**>("c", n, n), 3)), d(random_view(HostView<double**>("d", n, n), 4));
  Array<double**> t(HostView<double**>("t", n, n)), u(HostView<double**>("u", n, n)), y(HostView<double**>("y", n, n));
  measure(state, n, [&](const ExecutionSpace& exec) {
    kernels::gemm(exec, a.in(), b.in(), t.out());
    t.after_call();
    kernels::matadd(exec, t.in(), c.in(), u.out());
    u.after_call();
    kernels::gemm(exec, u.in(), d.in(), y.out());
    y.after_call();
    y.read_on_host();
  });
}

#define LAPIS_STRATEGIES(workload, ...)                                                           \
  BENCHMARK_TEMPLATE(workload, NaiveArray)->Name(#workload "/naive")->__VA_ARGS__;                \
  BENCHMARK_TEMPLATE(workload, KokkosDualArray)->Name(#workload "/kokkos_dualview")->__VA_ARGS__; \
  BENCHMARK_TEMPLATE(workload, LapisArray)->Name(#workload "/lapis")->__VA_ARGS__;                \
  BENCHMARK_TEMPLATE(workload, LapisPinnedArray)->Name(#workload "/lapis_pinned")->__VA_ARGS__

// Five sizes per workload, evenly spaced on the plots' log axes.
LAPIS_STRATEGIES(gemm_no_alloc, RangeMultiplier(2)->Range(16, 256)->Unit(benchmark::kMicrosecond));
LAPIS_STRATEGIES(batched_gemm_no_alloc, RangeMultiplier(2)->Range(4, 64)->Unit(benchmark::kMicrosecond));
LAPIS_STRATEGIES(spmv_noalloc, RangeMultiplier(4)->Range(1 << 10, 1 << 18)->Unit(benchmark::kMicrosecond));
LAPIS_STRATEGIES(spmm_dcsr_noalloc, RangeMultiplier(2)->Range(1 << 10, 1 << 14)->Unit(benchmark::kMicrosecond));
LAPIS_STRATEGIES(chained_pipeline, RangeMultiplier(2)->Range(16, 256)->Unit(benchmark::kMicrosecond));

// The copies of the bandwidth benchmarks: uploads (host->device) and downloads (device->host).
enum class Way { upload, download };

// One sync of `bytes` per iteration (the source side re-marked modified each time), timed without
// the copy-counting Tools callback, as a program runs. With pageable host memory on a GPU, copies
// from LAPIS_STAGING_MIN_BYTES on go through pinned staging.
template <class Alloc, Way way>
void sync_bandwidth(benchmark::State& state) {
  const TransferCounter::Paused paused;
  const std::int64_t bytes = state.range(0);
  lapis::DualView<unsigned char*, Kokkos::LayoutRight, Device, sync::Lazy, Alloc> dv("bytes", bytes);
  for (auto _ : state) {
    if constexpr (way == Way::upload) {
      dv.modify_host();
      dv.sync_device();
    } else {
      dv.modify_device();
      dv.sync_host();
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["size"] = double(bytes);
}

// The same copy through Kokkos::deep_copy alone, from or into `HostSpace` memory.
template <class HostSpace, Way way>
void raw_deep_copy(benchmark::State& state) {
  const TransferCounter::Paused paused;
  const std::int64_t bytes = state.range(0);
  Kokkos::View<unsigned char*, HostSpace> host("host", bytes);
  Kokkos::View<unsigned char*, DeviceMemory> device("device", bytes);
  for (auto _ : state) {
    if constexpr (way == Way::upload) Kokkos::deep_copy(device, host);
    else Kokkos::deep_copy(host, device);
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["size"] = double(bytes);
}

#if defined(KOKKOS_ENABLE_CUDA)
// The hardware's and the driver's figures: cudaMemcpy from or into page-locked (`pinned`) or
// pageable host memory, no Kokkos, no lapis.
template <bool pinned, Way way>
void raw_cuda_memcpy(benchmark::State& state) {
  const std::size_t bytes = state.range(0);
  std::vector<unsigned char> pageable(pinned ? 0 : bytes, 1);  // touched, so its pages exist
  void *host = pageable.data(), *device = nullptr;
  if ((pinned && cudaMallocHost(&host, bytes) != cudaSuccess) || cudaMalloc(&device, bytes) != cudaSuccess) {
    state.SkipWithError("cuda allocation failed");
    return;
  }
  for (auto _ : state) {
    if constexpr (way == Way::upload) cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
    else cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost);
  }
  cudaFree(device);
  if (pinned) cudaFreeHost(host);
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["size"] = double(bytes);
}
#endif

#define LAPIS_SIZES RangeMultiplier(64)->Range(8, 256 << 20)->Unit(benchmark::kMicrosecond)
#define LAPIS_BANDWIDTH(way)                                                                                \
  BENCHMARK_TEMPLATE(sync_bandwidth, alloc::Mirrored, Way::way)->Name(#way "/lapis_pageable")->LAPIS_SIZES; \
  BENCHMARK_TEMPLATE(sync_bandwidth, alloc::PinnedHost, Way::way)->Name(#way "/lapis_pinned")->LAPIS_SIZES; \
  BENCHMARK_TEMPLATE(raw_deep_copy, Kokkos::HostSpace, Way::way)                                            \
      ->Name(#way "/kokkos_deep_copy_pageable")                                                             \
      ->LAPIS_SIZES;                                                                                        \
  BENCHMARK_TEMPLATE(raw_deep_copy, PinnedHostSpace, Way::way)->Name(#way "/kokkos_deep_copy_pinned")->LAPIS_SIZES
LAPIS_BANDWIDTH(upload);
LAPIS_BANDWIDTH(download);
#if defined(KOKKOS_ENABLE_CUDA)
BENCHMARK_TEMPLATE(raw_cuda_memcpy, false, Way::upload)->Name("upload/cuda_memcpy_pageable")->LAPIS_SIZES;
BENCHMARK_TEMPLATE(raw_cuda_memcpy, true, Way::upload)->Name("upload/cuda_memcpy_pinned")->LAPIS_SIZES;
BENCHMARK_TEMPLATE(raw_cuda_memcpy, false, Way::download)->Name("download/cuda_memcpy_pageable")->LAPIS_SIZES;
BENCHMARK_TEMPLATE(raw_cuda_memcpy, true, Way::download)->Name("download/cuda_memcpy_pinned")->LAPIS_SIZES;
#endif

// A no-alloc matadd on tiny resident DualViews: the C++ side of the Python-overhead comparison.
void matadd_tiny_resident(benchmark::State& state) {
  const TransferCounter::Paused paused;
  lapis::DualView<double*, Kokkos::LayoutRight, Device> a("a", 1), b("b", 1), c("c", 1);
  kernels::matadd(a, b, c);
  const ExecutionSpace exec;
  for (auto _ : state) {
    kernels::matadd(a, b, c);
    exec.fence();  // what lapis.fence() does
  }
}
BENCHMARK(matadd_tiny_resident)->Name("python_overhead/matadd_tiny_cpp")->Unit(benchmark::kMicrosecond);

// Where a queued call's time goes, from C++: a one-element Kokkos kernel (Kokkos's own launch, the
// floor of any kernel call), and a no-alloc matadd on one-element resident DualViews.
struct Increment {
  Kokkos::View<float*, DeviceMemory> v;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { v(i) += 1; }
};

void kokkos_launch(benchmark::State& state) {
  const TransferCounter::Paused paused;
  const Increment increment{Kokkos::View<float*, DeviceMemory>("v", 1)};
  const ExecutionSpace exec;
  const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>> one(exec, 0, 1);
  for (auto _ : state) Kokkos::parallel_for("lapis::bench::increment", one, increment);
  exec.fence();
}
BENCHMARK(kokkos_launch)->Name("launch/kokkos_parallel_for")->Unit(benchmark::kMicrosecond);

void matadd_queued(benchmark::State& state) {
  const TransferCounter::Paused paused;
  lapis::DualView<float*, Kokkos::LayoutRight, Device> a("a", 1), b("b", 1), c("c", 1);
  for (auto _ : state) kernels::matadd(a, b, c);
  ExecutionSpace().fence();
}
BENCHMARK(matadd_queued)->Name("launch/matadd_cpp")->Unit(benchmark::kMicrosecond);

// Allocating calls from C++, the counterparts of benchmarks/allocating_calls.py: a new result per
// call (its device side from lapis's pool, not filled) dropped at once, the kernel queued; and a
// zero-filled DualView of 1 MiB made and dropped. The pool makes neither wait for the device.
using FloatVector = lapis::DualView<float*, Kokkos::LayoutRight, Device, alloc::DeviceFirst>;

void matadd_allocating(benchmark::State& state) {
  const TransferCounter::Paused paused;
  const std::int64_t n = state.range(0);
  FloatVector a("a", n), b("b", n);
  for (auto _ : state) {
    FloatVector c(lapis::for_overwrite, "c", n);
    kernels::matadd(a, b, c);
  }
  ExecutionSpace().fence();
}
BENCHMARK(matadd_allocating)->Name("allocating/matadd_cpp")->Arg(1)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);

void zeros_allocating(benchmark::State& state) {
  const TransferCounter::Paused paused;
  for (auto _ : state) FloatVector z("z", (1 << 20) / sizeof(float));
  ExecutionSpace().fence();
}
BENCHMARK(zeros_allocating)->Name("allocating/zeros_1MiB_cpp")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lapis::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  lapis::initialize();
  lapis::bench::TransferCounter::instance().install();
  benchmark::AddCustomContext("lapis_device", lapis::device_traits<lapis::DefaultDevice>::shares_host_memory
                                                  ? "simulated (CPU build)"
                                                  : lapis::bench::DeviceMemory::name());
  benchmark::AddCustomContext("kokkos_execution_space", lapis::bench::ExecutionSpace::name());
  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION / 10000) + "." +
                                                    std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                                                    std::to_string(KOKKOS_VERSION % 100));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  lapis::finalize();
  return 0;
}
