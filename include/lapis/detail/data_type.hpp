// Kokkos data types built from an element type and a rank: data_type_t<double, 2> is double**.
#pragma once

#include <cstddef>

namespace lapis {

template <class T, std::size_t Rank>
struct data_type {
  using type = typename data_type<T, Rank - 1>::type*;
};
template <class T>
struct data_type<T, 0> {
  using type = T;
};
template <class T, std::size_t Rank>
using data_type_t = typename data_type<T, Rank>::type;

}  // namespace lapis
