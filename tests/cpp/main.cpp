// The test programs' entry point: lapis (and so Kokkos) lives for the whole run.
#include <gtest/gtest.h>

#include "lapis/runtime/runtime.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  lapis::initialize();
  const int status = RUN_ALL_TESTS();
  lapis::finalize();
  return status;
}
