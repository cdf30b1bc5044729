// Division of 32-bit unsigned indices by a divisor fixed before a kernel runs, as a multiply-high,
// an add and two shifts (Granlund and Montgomery's method for invariant divisors). A GPU has no
// integer divide instruction: n / d compiles to a subroutine of about twenty instructions (more
// for 64 bits), which left conv2d's im2col, six divisions per element, at an eighth of the memory's speed.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace lapis::kernels::detail {

class FastDivision {
 public:
  FastDivision() = default;
  // d in [1, 2^32)
  explicit FastDivision(std::uint32_t d) : divisor_(d) {
    int l = 0;  // ceil(log2(d))
    while ((std::uint64_t(1) << l) < d) ++l;
    multiplier_ = std::uint32_t(((std::uint64_t(1) << 32) * ((std::uint64_t(1) << l) - d)) / d + 1);
    first_shift_ = l < 1 ? l : 1;
    second_shift_ = l > 1 ? l - 1 : 0;
  }

  KOKKOS_FORCEINLINE_FUNCTION std::uint32_t quotient(std::uint32_t n) const {
    const std::uint32_t high = std::uint32_t((std::uint64_t(multiplier_) * n) >> 32);
    return (high + ((n - high) >> first_shift_)) >> second_shift_;
  }
  // n = quotient * d + remainder
  KOKKOS_FORCEINLINE_FUNCTION std::uint32_t divide(std::uint32_t n, std::uint32_t& remainder) const {
    const std::uint32_t q = quotient(n);
    remainder = n - q * divisor_;
    return q;
  }

 private:
  std::uint32_t divisor_ = 1, multiplier_ = 1;
  int first_shift_ = 0, second_shift_ = 0;
};

}  // namespace lapis::kernels::detail
