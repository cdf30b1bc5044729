// An emitted module (lapis-translate --hpp multiple_results.hpp -o multiple_results.cpp --py ...), written
// to the rules of LAPIS's Kokkos emitter with the support header it pastes after #define LAPIS_MODULE_H
// left out (_corpus.py pastes one): a function of two results, an array and a scalar (sum_and_dot: a + b
// and a . b), and a program that calls it twice, its results taken with std::tie.
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
std::tuple<LAPIS::DualView<double*, Kokkos::LayoutRight>, double> sum_and_dot(LAPIS::DualView<double*, Kokkos::LayoutRight> v1, LAPIS::DualView<double*, Kokkos::LayoutRight> v2);
std::tuple<LAPIS::DualView<double*, Kokkos::LayoutRight>, double> program(LAPIS::DualView<double*, Kokkos::LayoutRight> v1, LAPIS::DualView<double*, Kokkos::LayoutRight> v2);
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
