// 2-D convolution (cross-correlation, as torch.nn.Conv2d computes it) of an NCHW array x with
// weights of shape (K, C, R, S), an optional bias of K, a stride and a zero padding equal in both
// dimensions: out(n, k, p, q) = bias(k) + sum over c, r, s of x(n, c, p*stride - padding + r,
// q*stride - padding + s) * w(k, c, r, s).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "lapis/detail/allocation.hpp"
#include "lapis/execution/batched_matrix_product.hpp"
#include "lapis/execution/kernel_call.hpp"
#include "lapis/execution/fast_division.hpp"
#include "lapis/execution/multi_index_loop.hpp"
#include "lapis/execution/matrix_product.hpp"
#include "lapis/execution/scratch.hpp"

namespace lapis::kernels {

struct Conv2d {
  std::int64_t stride = 1, padding = 0;
};

// The extents of the result, or std::invalid_argument for arguments torch would refuse.
inline Extents<4> conv2d_nchw_extents(const Extents<4>& x, const Extents<4>& w, const Conv2d& c) {
  if (c.stride < 1 || c.padding < 0) detail::refuse("conv2d_nchw", "stride must be positive and padding >= 0");
  if (w[1] != x[1])
    detail::refuse("conv2d_nchw", "w: has " + std::to_string(w[1]) + " input channels; x has " + std::to_string(x[1]));
  const std::int64_t h = x[2] + 2 * c.padding - w[2], v = x[3] + 2 * c.padding - w[3];
  if (h < 0 || v < 0)
    detail::refuse("conv2d_nchw",
                   "the kernel " + detail::shape_text(w) + " is larger than the padded input " + detail::shape_text(x));
  return {x[0], w[0], h / c.stride + 1, v / c.stride + 1};
}

inline void check_conv2d_bias_extents(const Extents<4>& w, const Extents<1>& bias) {
  if (bias[0] != w[0])
    detail::refuse("conv2d_nchw", "bias: has " + std::to_string(bias[0]) + " entries; w has " + std::to_string(w[0]) +
                                      " output channels");
}

namespace detail {

// The stride at which dimensions first to last of a strided view lie as one dimension, the last
// fastest: that of the last one longer than 1 (1 where none is), or nothing where they do not lie
// as one. A dimension of extent 1 may have any stride, wherever it is.
template <class View>
std::optional<std::int64_t> merged_stride(const View& v, int first, int last) {
  std::optional<std::int64_t> stride;
  std::int64_t next = 0;  // the stride the next dimension out must have
  for (int d = last; d >= first; --d) {
    if (v.extent(d) <= 1) continue;
    if (!stride) stride = std::int64_t(v.stride(d));
    else if (std::int64_t(v.stride(d)) != next) return std::nullopt;
    next = std::int64_t(v.stride(d)) * std::int64_t(v.extent(d));
  }
  return stride.value_or(1);
}

// The rank-2 view (rows, columns) of the elements at `data` with those strides.
template <class T, class Device>
Kokkos::View<T**, Kokkos::LayoutStride, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> matrix_at(
    T* data, std::size_t rows, std::size_t row_stride, std::size_t columns, std::size_t column_stride) {
  using Matrix = Kokkos::View<T**, Kokkos::LayoutStride, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  return Matrix(data, Kokkos::LayoutStride(rows, row_stride, columns, column_stride));
}

// Where a group's product goes straight into out: images of at least this many output pixels.
inline constexpr std::int64_t product_into_place_pixels = 512;

// Whether each group's product can go straight into out (product_into_place): CUDA with cuBLAS, no
// bias to add, an element type cuBLAS has, layouts it reads, images of product_into_place_pixels or
// more.
template <class ExecutionSpace, class WMatrix, class OutView>
bool product_goes_into_place([[maybe_unused]] const WMatrix& w, [[maybe_unused]] const OutView& out,
                             [[maybe_unused]] bool biased) {
  using T = typename OutView::non_const_value_type;
  constexpr bool cublas_type = std::is_same_v<T, float> || std::is_same_v<T, double>;
  if constexpr (Backend<ExecutionSpace>::cublas_batched_gemm && cublas_type) {
    const std::int64_t K = out.extent(1), pixels = out.extent(2) * out.extent(3), patch = w.extent(1);
    const std::int64_t w_leading = w.stride(0), out_leading = out.stride(1), images = out.extent(0);
    return !biased && pixels >= product_into_place_pixels && patch > 0 && w.stride(1) == 1 &&
           merged_stride(out, 2, 3) == 1 && w_leading >= patch && out_leading >= pixels &&
           std::max({images * pixels, K, patch, w_leading, out_leading, std::int64_t(out.stride(0))}) <= INT_MAX;
  }
  return false;
}

// out(first + image, k, p, q) = sum over row of w(k, row) columns(row, image * P * Q + p * Q + q):
// a group's product as one cuBLAS strided batched gemm, an image per entry (all sharing w: batch
// stride 0), written in place: no product in scratch, no pass to place it. Faster for large images,
// slower for small ones (docs/guide/kernels.md): a batch entry of few pixels leaves cuBLAS narrow
// products. Only where product_goes_into_place.
template <class ExecutionSpace, class WMatrix, class T, class OutView>
void product_into_place(const ExecutionSpace& exec, const WMatrix& w, const T* columns, std::int64_t images,
                        std::int64_t first, const OutView& out) {
  const std::int64_t K = out.extent(1), pixels = out.extent(2) * out.extent(3), patch = w.extent(1);
  const StridedBatch shared_w{true, int(w.stride(0)), 0}, image_columns{true, int(images * pixels), pixels},
      out_images{true, int(out.stride(1)), static_cast<long long>(out.stride(0))};
  cublas_strided_batched(exec, int(K), int(pixels), int(patch), w.data(), shared_w, columns, image_columns,
                         out.data() + first * out.stride(0), out_images, int(images));
}

}  // namespace detail

// How much scratch memory one group of images' im2col matrix and product may take: at least one
// image, and a batch of 8 ResNet-18 images at 224x224 in one group (about 85 MB for its first layer).
inline constexpr std::size_t conv2d_group_bytes = std::size_t(128) << 20;

// im2col and the vendor gemm (matrix_product.hpp), a group of images at a time: the group's patches
// are laid out side by side as one (C*R*S, images*P*Q) matrix in scratch memory, w, a (K, C*R*S)
// matrix, times it is the group's (K, images*P*Q) product, and each image's (K, P*Q) block of it
// goes into place in out, plus the bias (on CUDA, for large images, the product goes into place as
// a batched gemm: product_into_place). One product per group, not one per image: the gemm is what
// torch's CPU path and cuDNN's implicit-gemm algorithms reduce a convolution to, and a wider one
// keeps the device busy. `bias` may be an empty view (no bias).
template <class ExecutionSpace, class XView, class WView, class BView, class OutView>
void conv2d_nchw(const ExecutionSpace& exec, const XView& x, const WView& w, const BView& bias, const OutView& out,
                 const Conv2d& c) {
  using T = typename OutView::non_const_value_type;
  using MemorySpace = typename OutView::memory_space;
  using Device = Kokkos::Device<ExecutionSpace, MemorySpace>;
  const std::int64_t N = out.extent(0), K = out.extent(1), P = out.extent(2), Q = out.extent(3);
  const std::int64_t C = x.extent(1), H = x.extent(2), W = x.extent(3), R = w.extent(2), S = w.extent(3);
  if (N == 0 || K == 0 || P == 0 || Q == 0) return;
  const std::int64_t patch = C * R * S, pixels = P * Q;
  // w as a (K, C*R*S) matrix, packed first where its (c, r, s) dimensions do not lie as one
  using Packed = lapis::detail::Allocation<MemorySpace>;
  Packed w_packed;
  const auto w_columns = detail::merged_stride(w, 1, 3);
  auto w_matrix = detail::matrix_at<const T, Device>(w.data(), K, w.stride(0), patch, w_columns.value_or(1));
  if (!w_columns) {
    w_packed = detail::scratch<MemorySpace>("lapis::conv2d_nchw weights", K * patch * sizeof(T));
    const Kokkos::View<T****, Kokkos::LayoutRight, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> packed(
        reinterpret_cast<T*>(w_packed.data()), K, C, R, S);
    Kokkos::deep_copy(exec, packed, w);
    w_matrix = detail::matrix_at<const T, Device>(packed.data(), K, patch, patch, 1);
  }
  const std::size_t image_bytes = std::size_t(patch + K) * pixels * sizeof(T);
  const std::int64_t group = std::max<std::int64_t>(1, std::min<std::int64_t>(N, conv2d_group_bytes / image_bytes));
  const std::size_t column_bytes = std::size_t(patch) * group * pixels * sizeof(T);
  Packed columns = detail::scratch<MemorySpace>("lapis::conv2d_nchw im2col", column_bytes);
  const bool biased = bias.extent(0) != 0;
  const bool into_place = detail::product_goes_into_place<ExecutionSpace>(w_matrix, out, biased);
  const std::size_t product_bytes = std::size_t(K) * group * pixels * sizeof(T);
  Packed products = into_place ? Packed() : detail::scratch<MemorySpace>("lapis::conv2d_nchw product", product_bytes);
  const std::int64_t stride = c.stride, padding = c.padding;
  // im2col's rows split into (c, r, s) without a division per element (C * R * S is far below 2^32)
  const detail::FastDivision by_taps{std::uint32_t(R * S)}, by_kernel_width{std::uint32_t(S)};
  for (std::int64_t first = 0; first < N; first += group) {
    const std::int64_t images = std::min(group, N - first), width = images * pixels;
    const auto col = detail::matrix_at<T, Device>(reinterpret_cast<T*>(columns.data()), patch, width, width, 1);
    const auto product = detail::matrix_at<T, Device>(reinterpret_cast<T*>(products.data()), K, width, width, 1);
    // col(row, (image * P + p) * Q + q) = x(first + image, c, h, v) for row = (c, r, s), or 0 in the
    // padding: col's elements in order, so neighbouring threads write neighbouring pixels
    const detail::BoxExtents patches = {patch, images, P, Q}, placed = {images, K, P, Q};
    detail::for_each_multi_index<4>(
        "lapis::conv2d_nchw_im2col", exec, patches,
        KOKKOS_LAMBDA(std::int64_t row, std::int64_t image, std::int64_t p, std::int64_t q) {
          std::uint32_t tap, s;  // row = (ch * R + r) * S + s, tap = r * S + s
          const std::int64_t ch = by_taps.divide(std::uint32_t(row), tap), r = by_kernel_width.divide(tap, s);
          const std::int64_t h = p * stride - padding + r, v = q * stride - padding + s;
          col(row, (image * P + p) * Q + q) = h >= 0 && h < H && v >= 0 && v < W ? T(x(first + image, ch, h, v)) : T(0);
        });
    if constexpr (detail::Backend<ExecutionSpace>::cublas_batched_gemm) {
      if (into_place) {
        detail::product_into_place(exec, w_matrix, col.data(), images, first, out);
        continue;
      }
    }
    matrix_product(exec, Transpose::no, w_matrix, Transpose::no, col, product);
    detail::for_each_multi_index<4>(
        "lapis::conv2d_nchw_place", exec, placed,
        KOKKOS_LAMBDA(std::int64_t image, std::int64_t k, std::int64_t p, std::int64_t q) {
          const T value = product(k, (image * P + p) * Q + q);
          out(first + image, k, p, q) = biased ? T(value + bias(k)) : value;
        });
  }
  detail::before_scratch_returns(exec);
}

template <class X, class Wt, class Out, class = std::enable_if_t<detail::all_dual_views<X, Wt, Out>>>
void conv2d_nchw(X& x, Wt& w, Out& out, const Conv2d& c) {
  detail::require_result_extents("conv2d_nchw", "out", extents_of(out),
                                 conv2d_nchw_extents(extents_of(x), extents_of(w), c));
  using NoBias = Kokkos::View<const typename Out::non_const_value_type*, typename Out::t_dev::device_type>;
  detail::on_device_sides(
      "conv2d_nchw",
      [&c](const auto& exec, const auto& x_, const auto& w_, const auto& out_) {
        conv2d_nchw(exec, x_, w_, NoBias(), out_, c);
      },
      detail::reads(x), detail::reads(w), detail::writes(out));
}

template <class X, class Wt, class B, class Out, class = std::enable_if_t<detail::all_dual_views<X, Wt, B, Out>>>
void conv2d_nchw(X& x, Wt& w, B& bias, Out& out, const Conv2d& c) {
  check_conv2d_bias_extents(extents_of(w), extents_of(bias));
  detail::require_result_extents("conv2d_nchw", "out", extents_of(out),
                                 conv2d_nchw_extents(extents_of(x), extents_of(w), c));
  detail::on_device_sides(
      "conv2d_nchw",
      [&c](const auto& exec, const auto& x_, const auto& w_, const auto& bias_, const auto& out_) {
        conv2d_nchw(exec, x_, w_, bias_, out_, c);
      },
      detail::reads(x), detail::reads(w), detail::reads(bias), detail::writes(out));
}

}  // namespace lapis::kernels
