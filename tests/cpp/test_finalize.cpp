// lapis::finalize() releases the Kokkos memory of DualViews that are still alive, leaves their
// lapis-owned host memory readable, and makes every later use throw RuntimeFinalizedError.
#include <gtest/gtest.h>

#include "lapis/dualview.hpp"
#include "lapis/runtime.hpp"

namespace {

TEST(Finalize, LiveDualViewsBecomeUnusable) {
  lapis::initialize();
  using DV = lapis::DualView<double*, Kokkos::LayoutRight, lapis::SimulatedDevice>;
  DV dv("kept alive", 4);
  double* host = dv.view_host().data();
  host[3] = 5.0;
  dv.modify_host();
  dv.sync_device();

  lapis::finalize();
  EXPECT_TRUE(lapis::is_finalized());
  EXPECT_FALSE(Kokkos::is_initialized());
  EXPECT_EQ(host[3], 5.0);  // heap host memory outlives Kokkos
  EXPECT_THROW(dv.view_host(), lapis::RuntimeFinalizedError);
  EXPECT_THROW(dv.sync_host(), lapis::RuntimeFinalizedError);
  EXPECT_THROW(dv.modify_device(), lapis::RuntimeFinalizedError);
  EXPECT_THROW(DV("new", 2), lapis::RuntimeFinalizedError);
  EXPECT_NO_THROW(lapis::finalize());  // idempotent
  EXPECT_THROW(lapis::initialize(), lapis::RuntimeFinalizedError);
}

}  // namespace
