// lapis::finalize() releases the Kokkos memory of DualViews that are still alive, leaves their
// lapis-owned host memory readable, and makes every later use throw RuntimeFinalizedError.
#include <gtest/gtest.h>

#include "lapis/dualview.hpp"
#include "lapis/runtime/runtime.hpp"

namespace {

TEST(Finalize, LiveDualViewsBecomeUnusable) {
  lapis::initialize();
  // A module-global Kokkos View, dropped by the cleanup its module registered, while Kokkos lives.
  static Kokkos::View<double*> module_global("module global", 3);
  bool kokkos_alive_in_cleanup = false;
  lapis::at_finalize([&] {
    kokkos_alive_in_cleanup = Kokkos::is_initialized();
    module_global = {};
  });
  using DV = lapis::DualView<double*, Kokkos::LayoutRight, lapis::SimulatedDevice>;
  DV dv("kept alive", 4);
  double* host = dv.view_host().data();
  host[3] = 5.0;
  dv.modify_host();
  dv.sync_device();

  lapis::finalize();
  EXPECT_TRUE(kokkos_alive_in_cleanup);
  EXPECT_EQ(module_global.data(), nullptr);
  EXPECT_TRUE(lapis::is_finalized());
  EXPECT_FALSE(Kokkos::is_initialized());
  EXPECT_EQ(host[3], 5.0);  // heap host memory outlives Kokkos
  EXPECT_THROW(dv.view_host(), lapis::RuntimeFinalizedError);
  EXPECT_THROW(dv.sync_host(), lapis::RuntimeFinalizedError);
  EXPECT_THROW(dv.modify_device(), lapis::RuntimeFinalizedError);
  EXPECT_THROW(DV("new", 2), lapis::RuntimeFinalizedError);
  EXPECT_NO_THROW(lapis::finalize());  // idempotent
  EXPECT_THROW(lapis::initialize(), lapis::RuntimeFinalizedError);
  bool ran = false;
  lapis::at_finalize([&] { ran = true; });  // too late to wait: runs at once
  EXPECT_TRUE(ran);
}

}  // namespace
