// Elementwise kernels' machinery: visiting every element of an output of rank 0 to 4 in one
// parallel loop (for_each_multi_index), whatever its layout, and operands broadcast over that output. An operand is an
// array of the output's extents, a scalar that an earlier kernel left on the device (a rank-0
// DualView: read there, so nothing is copied), or a value the caller knows on the host.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "lapis/execution/backend.hpp"
#include "lapis/execution/contiguous_runs.hpp"
#include "lapis/execution/element_pairs.hpp"
#include "lapis/execution/extents.hpp"
#include "lapis/execution/multi_index_loop.hpp"

namespace lapis::kernels {

namespace detail {

// The rank-1 view of a view's elements in the order of its memory (see elementwise()).
template <class View>
using RunOf = Kokkos::View<typename View::value_type*, Kokkos::LayoutStride, typename View::device_type,
                           typename View::memory_traits>;
template <class View>
RunOf<View> as_run(const View& v) {
  return RunOf<View>(v.data(), Kokkos::LayoutStride(v.size(), 1));
}

}  // namespace detail

// One operand of an elementwise kernel: `View` is the view type it has when it is an array (a
// device view of the output's rank); as a scalar it ignores the indices.
template <class View>
class Operand {
 public:
  using value_type = typename View::non_const_value_type;

  static Operand array(const View& view) { return Operand(Kind::array, view, nullptr, value_type{}); }
  // The element at `address` in device memory, read when the kernel runs.
  static Operand on_device(const value_type* address) {
    return Operand(Kind::on_device, View(), address, value_type{});
  }
  static Operand value(value_type v) { return Operand(Kind::value, View(), nullptr, v); }

  template <class... I>
  KOKKOS_INLINE_FUNCTION value_type operator()(I... i) const {
    if (kind_ == Kind::array) return view_(i...);
    return scalar();
  }
  // The value of an operand that is not an array (of any rank: a rank-0 array is read by operator()).
  KOKKOS_INLINE_FUNCTION value_type scalar() const { return kind_ == Kind::on_device ? *address_ : value_; }

  bool is_array() const { return kind_ == Kind::array; }
  const View& view() const { return view_; }
  // The same operand over the output's elements read as one run: an array as its run.
  Operand<detail::RunOf<View>> as_run() const {
    using Run = Operand<detail::RunOf<View>>;
    if (kind_ == Kind::array) return Run::array(detail::as_run(view_));
    return kind_ == Kind::on_device ? Run::on_device(address_) : Run::value(value_);
  }

 private:
  enum class Kind { array, on_device, value };
  Operand(Kind kind, const View& view, const value_type* address, value_type value)
      : kind_(kind), view_(view), address_(address), value_(value) {}

  Kind kind_;
  View view_;
  const value_type* address_;
  value_type value_;
};

namespace detail {

// out(i...) = f(x(i...), y(i...)) at one index.
template <class F, class Out, class X, class Y>
struct BinaryElement {
  F f;
  Out out;
  X x;
  Y y;
  template <class... I>
  KOKKOS_INLINE_FUNCTION void operator()(I... i) const {
    out(i...) = f(x(i...), y(i...));
  }
};

// Whether a view's elements lie in C order with no gaps (dimensions of one element aside).
template <class View>
bool in_c_order(const View& v) {
  std::size_t step = 1;
  for (std::size_t k = View::rank; k-- > 0; step *= v.extent(k))
    if (v.extent(k) > 1 && v.stride(k) != step) return false;
  return true;
}

// Whether an operand of out's extents lies in memory as out does (a scalar goes with any layout).
template <class OutView, class View>
bool laid_out_as(const OutView& out, const View& v) {
  for (std::size_t k = 0; k < OutView::rank; ++k)
    if (out.extent(k) > 1 && out.stride(k) != v.stride(k)) return false;
  return true;
}
template <class OutView, class View>
bool laid_out_as(const OutView& out, const Operand<View>& o) {
  return !o.is_array() || laid_out_as(out, o.view());
}

template <class View>
auto as_run(const Operand<View>& o) {
  return o.as_run();
}

// Whether an operand of a rank-1 output is a scalar or an array of stride 1.
template <class View>
bool of_stride_one(const View& v) {
  return v.stride(0) == 1 || v.extent(0) <= 1;
}
template <class View>
bool of_stride_one(const Operand<View>& o) {
  return !o.is_array() || of_stride_one(o.view());
}

}  // namespace detail

// out(i...) = f(x(i...), y(i...)) for every element of out (rank 0 to 4); x and y are views of out's
// extents or Operands. An out that is one of the inputs is fine: each element is read before it
// is written, by the same thread. Where out lies in C order and the array operands as out does,
// the loop is the rank-1 one over their memory: no index to split per element; on the host, with
// the array operands of stride 1, its chunks' loops are vectorized (contiguous_runs.hpp), and on a
// GPU each index does two elements (element_pairs.hpp).
template <class ExecutionSpace, class F, class OutView, class X, class Y>
void elementwise(const char* name, const ExecutionSpace& exec, const F& f, const OutView& out, const X& x, const Y& y) {
  constexpr std::size_t rank = static_cast<std::size_t>(OutView::rank);
  static_assert(rank <= 4, "lapis::kernels: elementwise kernels take rank 0 to 4");
  if constexpr (rank >= 2) {
    if (detail::in_c_order(out) && detail::laid_out_as(out, x) && detail::laid_out_as(out, y)) {
      elementwise(name, exec, f, detail::as_run(out), detail::as_run(x), detail::as_run(y));
      return;
    }
  }
  if constexpr (rank == 1 && detail::Backend<ExecutionSpace>::runs_on_host) {
    if (detail::of_stride_one(out) && detail::of_stride_one(x) && detail::of_stride_one(y)) {
      const detail::ContiguousChunks<F, typename OutView::value_type, X, Y> chunks{f, out.data(), x, y,
                                                                                   std::int64_t(out.extent(0))};
      detail::for_each_index(name, exec, chunks.chunks(), chunks, detail::contiguous_chunk_elements);
      return;
    }
  }
  if constexpr (rank == 1 && !detail::Backend<ExecutionSpace>::runs_on_host) {
    const detail::ElementPairs<F, OutView, X, Y> pairs{f, out, x, y, std::int64_t(out.extent(0))};
    detail::for_each_index(name, exec, pairs.indices(), pairs, 2);
    return;
  }
  detail::BoxExtents extents = {};
  for (std::size_t k = 0; k < rank; ++k) extents[k] = out.extent(k);
  detail::for_each_multi_index<rank>(name, exec, extents, detail::BinaryElement<F, OutView, X, Y>{f, out, x, y});
}

// The result's extents of an elementwise kernel, from its array operands in turn: their common
// extents, where a rank-0 operand (a scalar) fits any; std::invalid_argument otherwise. Held by value:
// a call (and each replay of one) checks its operands without allocating.
class BroadcastExtents {
 public:
  explicit BroadcastExtents(const char* kernel) : kernel_(kernel) {}

  // The array operand `name`, of the extents [first, last).
  template <class Extent>
  void add(const char* name, const Extent* first, const Extent* last) {
    const auto rank = static_cast<std::size_t>(last - first);
    if (rank == 0) return;
    if (!first_) {  // a DualView's rank is at most max_rank, the room here
      first_ = name;
      rank_ = rank;
      std::copy(first, last, extents_.begin());
      return;
    }
    if (!std::equal(begin(), end(), first, last))
      detail::refuse(kernel_, "shapes " + detail::shape_text(*this) + " (" + first_ + ") and " +
                                  detail::shape_text(std::vector<std::int64_t>(first, last)) + " (" + name +
                                  ") differ; operands must have one shape, or be scalars");
  }

  // The extents, once every operand is added; std::invalid_argument beyond rank 4.
  const BroadcastExtents& result() const {
    if (rank_ > 4) detail::refuse(kernel_, "arrays of rank 0 to 4 only, got " + detail::shape_text(*this));
    return *this;
  }

  std::size_t size() const { return rank_; }
  std::int64_t operator[](std::size_t k) const { return extents_[k]; }
  const std::int64_t* begin() const { return extents_.data(); }
  const std::int64_t* end() const { return extents_.data() + rank_; }

 private:
  const char* kernel_;
  const char* first_ = nullptr;
  std::size_t rank_ = 0;
  std::array<std::int64_t, max_rank> extents_{};
};

}  // namespace lapis::kernels
