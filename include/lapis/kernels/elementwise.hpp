// Elementwise kernels' machinery: visiting every element of an output of rank 0 to 4 in one
// parallel loop (for_each_multi_index), whatever its layout, and operands broadcast over that output. An operand is an
// array of the output's extents, a scalar that an earlier kernel left on the device (a rank-0
// DualView: read there, so nothing is copied), or a value the caller knows on the host.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "lapis/kernels/extents.hpp"
#include "lapis/kernels/index_range.hpp"

namespace lapis::kernels {

// One operand of an elementwise kernel: `View` is the view type it has when it is an array (a
// device view of the output's rank); as a scalar it ignores the indices.
template <class View>
class Operand {
 public:
  using value_type = typename View::non_const_value_type;

  static Operand array(const View& view) { return Operand(Kind::array, view, nullptr, value_type{}); }
  // The element at `address` in device memory, read when the kernel runs.
  static Operand on_device(const value_type* address) { return Operand(Kind::on_device, View(), address, value_type{}); }
  static Operand value(value_type v) { return Operand(Kind::value, View(), nullptr, v); }

  template <class... I>
  KOKKOS_INLINE_FUNCTION value_type operator()(I... i) const {
    if (kind_ == Kind::array) return view_(i...);
    return kind_ == Kind::on_device ? *address_ : value_;
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

}  // namespace detail

// out(i...) = f(x(i...), y(i...)) for every element of out (rank 0 to 4); x and y are views of out's
// extents or Operands. An out that is one of the inputs is fine: each element is read before it
// is written, by the same thread.
template <class ExecutionSpace, class F, class OutView, class X, class Y>
void elementwise(const char* name, const ExecutionSpace& exec, const F& f, const OutView& out, const X& x,
                 const Y& y) {
  constexpr std::size_t rank = static_cast<std::size_t>(OutView::rank);
  static_assert(rank <= 4, "lapis::kernels: elementwise kernels take rank 0 to 4");
  detail::BoxExtents extents = {};
  for (std::size_t k = 0; k < rank; ++k) extents[k] = out.extent(k);
  detail::for_each_multi_index<rank>(name, exec, extents, detail::BinaryElement<F, OutView, X, Y>{f, out, x, y});
}

// The result's extents of an elementwise kernel: the operands' common extents, where a rank-0
// operand (a scalar) fits any; std::invalid_argument otherwise. `names` and `extents` go together;
// an operand known only as a value has no entry.
inline std::vector<std::int64_t> broadcast_extents(const char* kernel, const std::vector<std::string>& names,
                                                   const std::vector<std::vector<std::int64_t>>& extents) {
  std::vector<std::int64_t> result;
  std::string first;
  for (std::size_t k = 0; k < extents.size(); ++k) {
    if (extents[k].empty()) continue;
    if (first.empty()) {
      result = extents[k];
      first = names[k];
    } else if (extents[k] != result) {
      detail::refuse(kernel, "shapes " + detail::shape_text(result) + " (" + first + ") and " +
                                 detail::shape_text(extents[k]) + " (" + names[k] +
                                 ") differ; operands must have one shape, or be scalars");
    }
  }
  if (result.size() > 4) detail::refuse(kernel, "arrays of rank 0 to 4 only, got " + detail::shape_text(result));
  return result;
}

}  // namespace lapis::kernels
