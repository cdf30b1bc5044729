#include "kernels_bridge.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "lapis/execution_lock.hpp"
#include "lapis/kernels.hpp"
#include "lapis/make_view.hpp"
#include "lapis/runtime.hpp"
#include "lapis/spaces.hpp"

namespace lapis::python {
namespace {

using Exec = DefaultDevice::execution_space;
using Memory = DefaultDevice::memory_space;

template <class T, std::size_t Rank>
struct add_pointers {
  using type = typename add_pointers<T, Rank - 1>::type*;
};
template <class T>
struct add_pointers<T, 0> {
  using type = T;
};

// Device sides may be strided (a borrowed array that the device shares), so views are LayoutStride.
template <class T, std::size_t Rank>
using DeviceView = Kokkos::View<typename add_pointers<T, Rank>::type, Kokkos::LayoutStride, Memory,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T, std::size_t Rank>
DeviceView<const T, Rank> in(AnyDualBuffer& buffer) {
  buffer.sync(Side::device);
  return make_view<DeviceView<const T, Rank>>(buffer.data(Side::device), buffer.shape(), buffer.strides(Side::device));
}

template <class T, std::size_t Rank>
DeviceView<T, Rank> out(AnyDualBuffer& buffer) {
  return make_view<DeviceView<T, Rank>>(buffer.data_for_overwrite(Side::device), buffer.shape(),
                                        buffer.strides(Side::device));
}

// A kernel's call returns once the kernel is queued: whatever lapis does next (another kernel, a
// sync, an export) runs on the same execution space instance, after it. Memory lent by another
// library (from_dlpack) is used on that library's own streams as soon as the call returns, so a
// kernel touching it is finished first.
template <class... Buffers>
void finish_if_lent(const Buffers&... buffers) {
  if ((buffers.borrowed(Side::device) || ...)) Exec().fence();
}

// Every kernel call goes through here: it holds the runtime from the first address it takes to the
// queued kernel, so that a finalize on another thread waits for it.
template <class F>
auto with_scalar(Scalar scalar, F&& f) {
  const RuntimeUse use;
  return scalar == Scalar::float32 ? f(float{}) : f(double{});
}

template <class F>
void with_types(Scalar scalar, Index index, F&& f) {
  with_scalar(scalar, [&](auto t) {
    if (index == Index::int32) f(t, std::int32_t{});
    else f(t, std::int64_t{});
  });
}

// Runs kernel(exec, A, B, C) on inputs a, b and output c, all of rank `Rank`.
template <std::size_t Rank, class Kernel>
void binary(Scalar scalar, AnyDualBuffer& a, AnyDualBuffer& b, AnyDualBuffer& c, const Kernel& kernel) {
  with_scalar(scalar, [&](auto t) {
    using T = decltype(t);
    auto A = in<T, Rank>(a);
    auto B = in<T, Rank>(b);
    auto C = out<T, Rank>(c);
    const ExecutionGuard guard;
    kernel(Exec(), A, B, C);
    finish_if_lent(a, b, c);
  });
}

}  // namespace

void gemm(Scalar scalar, AnyDualBuffer& a, AnyDualBuffer& b, AnyDualBuffer& c) {
  binary<2>(scalar, a, b, c, [](const auto&... args) { kernels::gemm(args...); });
}

void batched_gemm(Scalar scalar, AnyDualBuffer& a, AnyDualBuffer& b, AnyDualBuffer& c) {
  binary<3>(scalar, a, b, c, [](const auto&... args) { kernels::batched_gemm(args...); });
}

void matadd(Scalar scalar, AnyDualBuffer& a, AnyDualBuffer& b, AnyDualBuffer& c) {
  const auto kernel = [](const auto&... args) { kernels::matadd(args...); };
  switch (c.shape().rank) {
    case 1: return binary<1>(scalar, a, b, c, kernel);
    case 2: return binary<2>(scalar, a, b, c, kernel);
    case 3: return binary<3>(scalar, a, b, c, kernel);
    case 4: return binary<4>(scalar, a, b, c, kernel);
    default: throw std::invalid_argument("matadd: rank 1 to 4");
  }
}

std::int64_t maxpool_output_extent(std::int64_t n, std::int64_t kernel_size, std::int64_t stride,
                                   std::int64_t padding, std::int64_t dilation) {
  return kernels::Pool2d{kernel_size, stride, padding, dilation}.output_extent(n);
}

void maxpool_nchw(Scalar scalar, AnyDualBuffer& x, AnyDualBuffer& y, std::int64_t kernel_size, std::int64_t stride,
                  std::int64_t padding, std::int64_t dilation) {
  with_scalar(scalar, [&](auto t) {
    using T = decltype(t);
    auto X = in<T, 4>(x);
    auto Y = out<T, 4>(y);
    const ExecutionGuard guard;
    kernels::maxpool_nchw(Exec(), X, Y, kernels::Pool2d{kernel_size, stride, padding, dilation});
    finish_if_lent(x, y);
  });
}

void spmv(Scalar scalar, Index index, AnyDualBuffer& indptr, AnyDualBuffer& indices, AnyDualBuffer& data,
          AnyDualBuffer& x, AnyDualBuffer& y) {
  with_types(scalar, index, [&](auto t, auto i) {
    using T = decltype(t);
    using I = decltype(i);
    auto P = in<I, 1>(indptr);
    auto J = in<I, 1>(indices);
    {
      const ExecutionGuard guard;
      kernels::check_spmv_csr(Exec(), P, J, y.shape().extents[0], x.shape().extents[0]);
    }
    auto D = in<T, 1>(data);
    auto X = in<T, 1>(x);
    auto Y = out<T, 1>(y);
    const ExecutionGuard guard;
    kernels::spmv_csr(Exec(), P, J, D, X, Y);
    finish_if_lent(indptr, indices, data, x, y);
  });
}

void spmm_dcsr(Scalar scalar, Index index, AnyDualBuffer& rows, AnyDualBuffer& indptr, AnyDualBuffer& indices,
               AnyDualBuffer& data, AnyDualBuffer& b, AnyDualBuffer& c) {
  with_types(scalar, index, [&](auto t, auto i) {
    using T = decltype(t);
    using I = decltype(i);
    auto R = in<I, 1>(rows);
    auto P = in<I, 1>(indptr);
    auto J = in<I, 1>(indices);
    {
      const ExecutionGuard guard;
      kernels::check_spmm_dcsr(Exec(), R, P, J, c.shape().extents[0], b.shape().extents[0]);
    }
    auto D = in<T, 1>(data);
    auto B = in<T, 2>(b);
    auto C = out<T, 2>(c);
    const ExecutionGuard guard;
    kernels::spmm_dcsr(Exec(), R, P, J, D, B, C);
    finish_if_lent(rows, indptr, indices, data, b, c);
  });
}

double dot(Scalar scalar, AnyDualBuffer& x, AnyDualBuffer& y) {
  return with_scalar(scalar, [&](auto t) -> double {
    using T = decltype(t);
    auto X = in<T, 1>(x);
    auto Y = in<T, 1>(y);
    const ExecutionGuard guard;
    return kernels::dot(Exec(), X, Y);
  });
}

}  // namespace lapis::python
