// A program (or another extension) that initialized Kokkos itself shares it with lapis: lapis
// neither initializes it again nor finalizes it, but still releases its own memory on finalize.
#include <gtest/gtest.h>

#include "lapis/dualview.hpp"
#include "lapis/runtime/runtime.hpp"

namespace {

TEST(ForeignKokkos, LapisLeavesKokkosToItsOwner) {
  Kokkos::initialize();
  lapis::initialize();  // finds Kokkos running: nothing to do
  {
    lapis::DualView<double*, Kokkos::LayoutRight, lapis::SimulatedDevice> dv("shared", 8);
    dv.modify_host();
    dv.sync_device();
    const auto live = lapis::live_allocations();
    lapis::finalize();  // releases lapis's Kokkos memory...
    EXPECT_EQ(lapis::live_allocations(), live - 1);
    EXPECT_TRUE(Kokkos::is_initialized());  // ...and leaves Kokkos running for its owner
    EXPECT_THROW(dv.sync_host(), lapis::RuntimeFinalizedError);
  }
  Kokkos::View<double*> still_usable("still usable", 4);
  Kokkos::deep_copy(still_usable, 1.0);
  still_usable = {};
  Kokkos::finalize();
  EXPECT_FALSE(Kokkos::is_initialized());
}

}  // namespace
