// The entry point of the Kokkos DualView port: a main as any Kokkos program has it, with nothing of
// lapis's. lapis's runtime starts on this Kokkos at the first lapis operation and lets go of what it
// holds, through Kokkos's finalize hook, before Kokkos::finalize returns.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::initialize(argc, argv);
  const int status = RUN_ALL_TESTS();
  Kokkos::finalize();
  return status;
}
