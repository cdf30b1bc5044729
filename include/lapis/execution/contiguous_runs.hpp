// The host's form of an elementwise loop over memory laid out as one run (elementwise.hpp): each
// thread takes chunks of the run and, once per chunk, resolves what the per-element form decides at
// every element (whether an operand is an array or a scalar, which operation a kernel chosen at run
// time applies), so that the chunk's loop is a plain loop over pointers, which the compiler
// vectorizes (docs/guide/kernels.md has the figures).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace lapis::kernels::detail {

// The elements of one chunk: enough to amortize the resolution, few enough for threads to balance.
inline constexpr std::int64_t contiguous_chunk_elements = 4096;

// A scalar operand over a chunk: the same value at every index.
template <class T>
struct Broadcast {
  T value;
  T operator[](std::int64_t) const { return value; }
};

// `f` with nothing left to decide per element: the functor itself, unless its type offers a
// resolution (an overload of `resolved` found by argument-dependent lookup).
template <class F, class Continue>
void resolved(const F& f, const Continue& next) {
  next(f);
}

// An operand as a chunk's loop reads it: an array as its pointer, a scalar as a Broadcast of its
// value (read here, on the host, as the kernel runs: an earlier kernel may have written it).
template <class Operand, class Continue>
void as_pointer_or_value(const Operand& x, const Continue& next) {
  if constexpr (Kokkos::is_view<Operand>::value) {
    next(x.data());
  } else if (x.is_array()) {
    next(x.view().data());
  } else {
    next(Broadcast<typename Operand::value_type>{x.scalar()});
  }
}

template <class F, class T, class X, class Y>
struct ContiguousChunks {
  F f;
  T* out;
  X x;
  Y y;
  std::int64_t count;

  std::int64_t chunks() const { return (count + contiguous_chunk_elements - 1) / contiguous_chunk_elements; }

  void operator()(std::int64_t chunk) const {
    const std::int64_t begin = chunk * contiguous_chunk_elements;
    const std::int64_t end = std::min(count, begin + contiguous_chunk_elements);
    T* const result = out;
    resolved(f, [&](const auto& g) {
      as_pointer_or_value(x, [&](const auto& xs) {
        as_pointer_or_value(y, [&](const auto& ys) {
          for (std::int64_t i = begin; i < end; ++i) result[i] = g(xs[i], ys[i]);
        });
      });
    });
  }
};

}  // namespace lapis::kernels::detail
