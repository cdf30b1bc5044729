// The DualView class template, declared, and the trait that recognises it: shared by
// lapis/dualview.hpp, which defines it, and code that handles typed DualViews without needing their
// definition (the nanobind and pybind11 casters).
#pragma once

#include <type_traits>

namespace lapis {

template <class DataType, class... Properties>
class DualView;

template <class T>
struct is_dual_view : std::false_type {};
template <class DataType, class... Properties>
struct is_dual_view<DualView<DataType, Properties...>> : std::true_type {};
template <class T>
inline constexpr bool is_dual_view_v = is_dual_view<std::remove_cv_t<T>>::value;

}  // namespace lapis
