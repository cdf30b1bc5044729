// The vector updates of a preconditioned conjugate-gradient iteration, fused: each is one pass over
// its vectors (separate kernels take two to four, and a launch each), and the step lengths are
// quotients of rank-0 views read on the device, so a solver's scalars never leave it.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "lapis/execution/kernel_call.hpp"
#include "lapis/execution/flat_loop.hpp"
#include "lapis/execution/reduction.hpp"

namespace lapis::kernels {

// The named vectors of one call must have one length.
inline void check_cg_lengths(const char* kernel, std::initializer_list<std::pair<const char*, Extents<1>>> vectors) {
  const auto& [first_name, first] = *vectors.begin();
  for (const auto& [name, extents] : vectors)
    if (extents != first)
      detail::refuse(kernel, std::string(name) + " has " + std::to_string(extents[0]) + " elements; " + first_name +
                                 " has " + std::to_string(first[0]));
}

// What cg_step reads at one index, and its step length.
template <class T>
struct StepOperands {
  T alpha, x, p, r, q;
};

// x += alpha p, r -= alpha q (q = A p) and rr = r . r, with alpha = rz / pq.
template <class ExecutionSpace, class Rz, class Pq, class P, class Q, class X, class R, class Rr>
void cg_step(const ExecutionSpace& exec, const Rz& rz, const Pq& pq, const P& p, const Q& q, const X& x, const R& r,
             const Rr& rr) {
  using T = typename X::non_const_value_type;
  detail::reduce_each_index(
      "lapis::cg_step", exec, static_cast<std::int64_t>(x.extent(0)),
      detail::loads_then(
          KOKKOS_LAMBDA(std::int64_t i)->StepOperands<T> { return {rz() / pq(), x(i), p(i), r(i), q(i)}; },
          KOKKOS_LAMBDA(std::int64_t i, const StepOperands<T>& v, T& sum) {
            x(i) = v.x + v.alpha * v.p;
            const T residual = v.r - v.alpha * v.q;
            r(i) = residual;
            sum += residual * residual;
          }),
      rr);
}

// What cg_precondition reads at one index.
template <class T>
struct PreconditionOperands {
  T m, r;
};

// z = m r elementwise (m the preconditioner's diagonal: Jacobi's is 1 / diag(A)) and rz = r . z.
template <class ExecutionSpace, class M, class R, class Z, class Rz>
void cg_precondition(const ExecutionSpace& exec, const M& m, const R& r, const Z& z, const Rz& rz) {
  using T = typename Z::non_const_value_type;
  detail::reduce_each_index("lapis::cg_precondition", exec, static_cast<std::int64_t>(z.extent(0)),
                            detail::loads_then(
                                KOKKOS_LAMBDA(std::int64_t i)->PreconditionOperands<T> { return {m(i), r(i)}; },
                                KOKKOS_LAMBDA(std::int64_t i, const PreconditionOperands<T>& v, T& sum) {
                                  const T preconditioned = v.m * v.r;
                                  z(i) = preconditioned;
                                  sum += v.r * preconditioned;
                                }),
                            rz);
}

// p = z + beta p, with beta = rz / rz_old.
template <class ExecutionSpace, class Z, class Rz, class RzOld, class P>
void cg_direction(const ExecutionSpace& exec, const Z& z, const Rz& rz, const RzOld& rz_old, const P& p) {
  detail::for_each_index(
      "lapis::cg_direction", exec, static_cast<std::int64_t>(p.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i) { p(i) = z(i) + rz() / rz_old() * p(i); });
}

// The same on DualViews: the vectors rank 1, the scalars rank 0; the updated vectors (x and r, z,
// p) and the results (rr, rz) are written on the device side and marked modified.
template <class Rz, class Pq, class P, class Q, class X, class R, class Rr,
          class = std::enable_if_t<detail::all_dual_views<Rz, Pq, P, Q, X, R, Rr>>>
void cg_step(Rz& rz, Pq& pq, P& p, Q& q, X& x, R& r, Rr& rr) {
  static_assert(Rz::rank == 0 && Pq::rank == 0 && Rr::rank == 0 && P::rank == 1 && Q::rank == 1 && X::rank == 1 &&
                R::rank == 1);
  check_cg_lengths("cg_step", {{"x", extents_of(x)}, {"p", extents_of(p)}, {"q", extents_of(q)}, {"r", extents_of(r)}});
  detail::on_device_sides(
      "cg_step", [](const auto&... views) { cg_step(views...); }, detail::reads(rz), detail::reads(pq),
      detail::reads(p), detail::reads(q), detail::updates(x), detail::updates(r), detail::writes(rr));
}

template <class M, class R, class Z, class Rz, class = std::enable_if_t<detail::all_dual_views<M, R, Z, Rz>>>
void cg_precondition(M& m, R& r, Z& z, Rz& rz) {
  static_assert(M::rank == 1 && R::rank == 1 && Z::rank == 1 && Rz::rank == 0);
  check_cg_lengths("cg_precondition", {{"r", extents_of(r)}, {"m", extents_of(m)}, {"z", extents_of(z)}});
  detail::on_device_sides(
      "cg_precondition", [](const auto&... views) { cg_precondition(views...); }, detail::reads(m), detail::reads(r),
      detail::writes(z), detail::writes(rz));
}

template <class Z, class Rz, class RzOld, class P, class = std::enable_if_t<detail::all_dual_views<Z, Rz, RzOld, P>>>
void cg_direction(Z& z, Rz& rz, RzOld& rz_old, P& p) {
  static_assert(Z::rank == 1 && Rz::rank == 0 && RzOld::rank == 0 && P::rank == 1);
  check_cg_lengths("cg_direction", {{"p", extents_of(p)}, {"z", extents_of(z)}});
  detail::on_device_sides(
      "cg_direction", [](const auto&... views) { cg_direction(views...); }, detail::reads(z), detail::reads(rz),
      detail::reads(rz_old), detail::updates(p));
}

}  // namespace lapis::kernels
