// lapis's runtime attaches to whichever Kokkos is initialized, as in a C++ program that only calls
// Kokkos::initialize and Kokkos::finalize (a LAPIS module's driver, Kokkos's own test mains): used
// before any Kokkos it says so; its first operation after Kokkos::initialize starts it; and
// Kokkos::finalize releases lapis's memory first, through Kokkos's finalize hook.
#include <gtest/gtest.h>

#include "lapis/dualview.hpp"
#include "lapis/runtime/runtime.hpp"

namespace {

using DV = lapis::DualView<double*, Kokkos::LayoutRight, lapis::SimulatedDevice>;

TEST(Attach, LapisRunsOnTheKokkosSomeoneElseInitialized) {
  try {
    DV before("before", 4);
    ADD_FAILURE() << "a DualView was made before any Kokkos was initialized";
  } catch (const lapis::RuntimeFinalizedError& e) {
    EXPECT_NE(std::string(e.what()).find("Kokkos is not initialized"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(lapis::is_finalized());

  Kokkos::initialize();
  const auto live = lapis::live_allocations();
  DV dv("attached", 8);  // the first lapis operation starts lapis's runtime on this Kokkos
  dv.view_host(lapis::Access::write)(7) = 2.0;
  dv.sync_device();
  EXPECT_EQ(dv.view_device()(7), 2.0);
  EXPECT_EQ(dv.transfers(), (lapis::TransferStats{1, 64, 0, 0}));
  EXPECT_FALSE(lapis::is_finalized());
  EXPECT_EQ(lapis::live_allocations(), live + 2);

  Kokkos::finalize();  // lapis's finalize hook releases dv's memory while Kokkos is alive
  EXPECT_TRUE(lapis::is_finalized());
  EXPECT_EQ(lapis::live_allocations(), live + 1);  // the host side: heap memory, still readable
  EXPECT_THROW(dv.sync_host(), lapis::RuntimeFinalizedError);
}

}  // namespace
