// What code written for Kokkos 4 calls that Kokkos 3 spells otherwise: LAPIS's emitter writes
// Kokkos::isnan, min, max, sqrt, atomic_load ... in every module, and lapis builds against Kokkos 3.4
// too. On Kokkos 4 and later this header adds nothing. On Kokkos 3 it names, in namespace Kokkos,
// the Kokkos 3 functions that do the same (the math functions of Kokkos::Experimental) and the few
// that Kokkos 3 lacks altogether.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

#if KOKKOS_VERSION < 40000
namespace Kokkos {

using Experimental::atan;
using Experimental::cos;
using Experimental::erf;
using Experimental::exp;
using Experimental::exp2;
using Experimental::fmod;
using Experimental::isnan;
using Experimental::log;
using Experimental::log2;
using Experimental::sin;
using Experimental::sqrt;
using Experimental::tanh;

// Kokkos 3's own atomic loads and stores take integers only: these take any type its atomics take.
template <class T>
KOKKOS_INLINE_FUNCTION T atomic_load(T* address) {
  const T guess{};
  return atomic_compare_exchange(address, guess, guess);  // rewrites only what it reads
}
template <class T>
KOKKOS_INLINE_FUNCTION void atomic_store(T* address, T value) {
  atomic_exchange(address, value);
}

template <class T>
KOKKOS_INLINE_FUNCTION constexpr const T& min(const T& a, const T& b) {
  return b < a ? b : a;
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr const T& max(const T& a, const T& b) {
  return a < b ? b : a;
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_INLINE_FUNCTION constexpr T abs(T x) {
  return x < T(0) ? -x : x;
}

}  // namespace Kokkos
#endif
