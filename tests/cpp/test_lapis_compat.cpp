// The LAPIS-compatible surface (lapis/interop/lapis_compat.hpp): LAPIS::DualView as LAPIS's emitter uses
// it, on lapis's state. The simulated device keeps the sides apart, so every sync is a real copy.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <utility>

#include "lapis/interop/lapis_compat.hpp"
#include "lapis/interop/memref.hpp"

namespace {

using Vector = LAPIS::DualView<double*, Kokkos::LayoutRight, lapis::SimulatedDevice>;
using Matrix = LAPIS::DualView<double**, Kokkos::LayoutRight, lapis::SimulatedDevice>;

TEST(LapisCompat, ANewArraySyncsAndCountsLikeAnyDualView) {
  Vector a("a", 4);
  EXPECT_EQ(a.extent(0), 4u);
  a.host_view()(1) = 2.0;
  a.modifyHost();
  EXPECT_TRUE(a.modifiedHost());
  EXPECT_FALSE(a.modifiedDevice());
  a.syncDevice();
  EXPECT_FALSE(a.modifiedHost());
  EXPECT_EQ(a.device_view()(1), 2.0);  // the simulated device side is host memory
  EXPECT_EQ(a.buffer()->transfers(), (lapis::TransferStats{1, 32, 0, 0}));
  a.syncDevice();  // current: nothing moves
  EXPECT_EQ(a.buffer()->transfers().h2d_count, 1u);
  Matrix m("m", 3, 5);
  EXPECT_EQ(m.extent(1), 5u);
  EXPECT_EQ(m.stride(0), 5u);
}

// LAPIS emits static extents for shapes it knows at compile time (float[8748][91]).
TEST(LapisCompat, StaticExtentsNeedOnlyALabel) {
  LAPIS::DualView<float[6][4], Kokkos::LayoutRight, lapis::SimulatedDevice> fixed("fixed");
  EXPECT_EQ(fixed.extent(0), 6u);
  EXPECT_EQ(fixed.extent(1), 4u);
  EXPECT_EQ(fixed.stride(0), 4u);
  fixed.device_view()(5, 3) = 7.0f;
  fixed.modifyDevice();
  fixed.syncHost();
  EXPECT_EQ(fixed.host_view()(5, 3), 7.0f);
  EXPECT_EQ(fixed.buffer()->transfers(), (lapis::TransferStats{0, 0, 1, 96}));
  LAPIS::DualView<double* [3], Kokkos::LayoutRight, lapis::SimulatedDevice> mixed("mixed", 5);
  EXPECT_EQ(mixed.extent(0), 5u);
  EXPECT_EQ(mixed.extent(1), 3u);
}

// A child shares its parent's whole state: syncing one child never loses a sibling's change.
TEST(LapisCompat, ChildrenShareTheParentsStateAndKeepSiblingsChanges) {
  Vector parent("parent", 10);
  const auto half = [&](int begin, int end) {
    return Vector(Kokkos::subview(parent.device_view(), std::make_pair(begin, end)),
                  Kokkos::subview(parent.host_view(), std::make_pair(begin, end)), parent);
  };
  Vector left = half(0, 5), right = half(5, 10);
  left.host_view()(0) = 1.0;
  left.modifyHost();
  right.host_view()(4) = 2.0;
  right.modifyHost();
  EXPECT_TRUE(parent.modifiedHost());
  left.syncDevice();
  EXPECT_FALSE(right.modifiedHost());
  EXPECT_EQ(parent.device_view()(0), 1.0);
  EXPECT_EQ(parent.device_view()(9), 2.0);
  EXPECT_EQ(parent.buffer()->transfers(), (lapis::TransferStats{1, 80, 0, 0}));  // one whole copy
  EXPECT_EQ(lapis::whole_of(left.buffer()), parent.buffer());  // a child's buffer is its part of the parent's
  EXPECT_EQ(left.buffer()->shape().extents[0], 5u);
}

TEST(LapisCompat, ExistingViewsBecomeASideMarkedModified) {
  Vector::HostView host("host", 3);
  host(2) = 4.0;
  Vector from_host(host);
  EXPECT_TRUE(from_host.modifiedHost());
  EXPECT_EQ(from_host.host_view().data(), host.data());
  from_host.syncDevice();
  EXPECT_EQ(from_host.device_view()(2), 4.0);

  using Default = LAPIS::DualView<double*, Kokkos::LayoutRight>;
  Default on_device(Default::DeviceView("device", 3));
  constexpr bool device_memory_is_apart =
      !std::is_same_v<Default::DeviceView::memory_space, Default::HostView::memory_space>;
  EXPECT_EQ(on_device.modifiedDevice(), device_memory_is_apart);  // on a CPU build it is host memory
  EXPECT_EQ(on_device.modifiedHost(), !device_memory_is_apart);
}

TEST(LapisCompat, MarkingBothSidesThrowsInsteadOfLosingAChange) {
  Vector a("a", 2);
  a.modifyHost();
  EXPECT_THROW(a.modifyDevice(), lapis::ConcurrentModificationError);
}

TEST(LapisCompat, AnOutputSyncsItsHostSideWhenItsHandleDies) {
  Vector out("out", 2);
  {
    Vector handle = out;
    handle.syncHostOnDestroy();
    handle.device_view()(0) = 3.0;
    handle.modifyDevice();
  }
  EXPECT_FALSE(out.modifiedDevice());
  EXPECT_EQ(out.host_view()(0), 3.0);
  EXPECT_EQ(out.buffer()->transfers().d2h_count, 1u);
}

// The data stays until finalize (main's last lapis_finalize below, which must not deadlock on the
// cleanup that holds it).
TEST(LapisCompat, KeepAliveHostHoldsTheDataUntilFinalize) {
  const auto live = lapis::live_allocations();
  {
    Vector kept("kept", 8);
    kept.host_view()(0) = 1.0;
    kept.keepAliveHost();
  }
  EXPECT_GT(lapis::live_allocations(), live);
}

TEST(LapisCompat, DeallocateDropsOnlyThisHandle) {
  Vector a("a", 2), b = a;
  a.deallocate();
  EXPECT_EQ(a.buffer(), nullptr);
  EXPECT_FALSE(a.modifiedHost());
  a.syncDevice();  // an empty handle: nothing to do
  b.host_view()(1) = 1.0;
  EXPECT_EQ(b.host_view()(1), 1.0);
}

// MLIR memref descriptors both ways, without copies.
TEST(LapisCompat, MemrefDescriptorsBecomeDualViewsAndBack) {
  double data[12];
  for (int i = 0; i < 12; ++i) data[i] = i;
  // every other column of a 3 x 4 row-major array: sizes (3, 2), strides (4, 2), offset 1
  StridedMemRefType<double, 2> columns{data, data, 1, {3, 2}, {4, 2}};
  auto dv = lapis::from_memref<lapis::SimulatedDevice>(columns);
  EXPECT_EQ(dv.view_host().data(), data + 1);
  EXPECT_TRUE(dv.need_sync_device());
  dv.sync_device();
  EXPECT_EQ(dv.view_device()(2, 1), 11.0);  // the device side: a contiguous copy of the strided host memory
  EXPECT_EQ(dv.transfers().h2d_count, 1u);

  const auto device = lapis::to_memref(dv, lapis::Side::device);
  EXPECT_EQ(device.data, dv.view_device().data());
  EXPECT_EQ(device.sizes[0], 3);
  EXPECT_EQ(device.strides[0], 2);  // contiguous (3, 2)
  EXPECT_EQ(device.strides[1], 1);
  const auto host = lapis::to_memref(dv, lapis::Side::host);
  EXPECT_EQ(host.data, data + 1);
  EXPECT_EQ(host.strides[0], 4);

  StridedMemRefType<double, 1> negative{data, data, 11, {3}, {-1}};
  EXPECT_THROW(lapis::from_memref(negative), std::invalid_argument);
  StridedMemRefType<double, 1> null{nullptr, nullptr, 0, {3}, {1}};
  EXPECT_THROW(lapis::from_memref(null), std::invalid_argument);
}

}  // namespace

// Two modules' initialize and finalize calls around the tests: the runtime ends with the last
// lapis_finalize, because the first lapis_initialize started it.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  lapis_initialize();
  lapis_initialize();
  const int status = RUN_ALL_TESTS();
  lapis_finalize();
  if (lapis::is_finalized()) {
    std::fprintf(stderr, "the runtime ended while a module still held it\n");
    return 1;
  }
  lapis_finalize();
  if (!lapis::is_finalized()) {
    std::fprintf(stderr, "the last lapis_finalize left the runtime running\n");
    return 1;
  }
  return status;
}
