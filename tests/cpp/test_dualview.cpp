// lapis::DualView under every sync and allocation policy, on the default device (sides alias on a
// CPU build) and on the simulated device (sides apart: every sync is a real copy).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "lapis/detail/strided_copy.hpp"
#include "lapis/dualview.hpp"
#include "lapis/kernels.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/trace.hpp"
#include "support.hpp"

namespace {

using lapis::test::apart;
using lapis::test::counts;

template <class Device>
class DualViewTest : public ::testing::Test {};
TYPED_TEST_SUITE(DualViewTest, lapis::test::Devices);

template <class DV>
void fill_device(DV& dv, double offset) {
  lapis::test::fill_pattern(dv.view_device(), offset);
  dv.modify_device();
}

TYPED_TEST(DualViewTest, MirroredCopiesOnlyAtSyncsAndViewsNeverSync) {
  using Device = TypeParam;
  lapis::DualView<double**, Kokkos::LayoutRight, Device> dv("a", 4, 3);
  EXPECT_TRUE(dv.host_allocated());
  EXPECT_TRUE(dv.device_allocated());
  EXPECT_EQ(dv.aliased(), !apart<Device>);
  auto h = dv.view_host();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(h(i, j), 0.0);  // zero-filled, never garbage

  h(1, 2) = 7.0;
  dv.modify_host();
  EXPECT_TRUE(dv.need_sync_device());
  auto d = dv.view_device();  // a plain accessor, as in Kokkos: nothing synced
  EXPECT_TRUE(dv.need_sync_device());
  EXPECT_EQ(dv.transfers(), counts(0, 0, 0, 0));
  dv.sync_device();
  EXPECT_FALSE(dv.need_sync_device());
  EXPECT_EQ(lapis::test::read_element(d, 1, 2), 7.0);
  dv.sync_device();  // current: nothing more
  EXPECT_EQ(dv.transfers(), apart<Device> ? counts(1, 96, 0, 0) : counts(0, 0, 0, 0));

  fill_device(dv, 100);
  EXPECT_TRUE(dv.need_sync_host());
  if (apart<Device>) {
    EXPECT_EQ(h(3, 1), 0.0);  // the simulated host side really is stale
  }
  dv.sync_host();
  EXPECT_EQ(h(3, 1), 131.0);
  dv.sync_host();
  EXPECT_EQ(dv.transfers(), apart<Device> ? counts(1, 96, 1, 96) : counts(0, 0, 0, 0));
}

// A C++ program's trace: lapis::trace::Recording sees the copies, allocations, frees and kernel
// calls of its scope, with their sizes, as Python's lapis.trace() does (no Python caller here).
TYPED_TEST(DualViewTest, ARecordingSeesCopiesAllocationsAndKernels) {
  using Device = TypeParam;
  using DV = lapis::DualView<double*, Kokkos::LayoutRight, Device>;
  std::vector<lapis::trace::Event> events;
  {
    lapis::trace::Recording recording;
    {
      DV x("x", 100), y("y", 100);
      x.view_host()(3) = 2.0;
      x.modify_host();
      lapis::kernels::matadd(x, x, y);
      y.sync_host();
    }
    events = recording.events();
  }
  std::vector<std::string> copies, kernels;
  std::size_t allocated = 0, freed = 0;
  for (const auto& e : events) {
    if (e.kind == lapis::trace::Kind::copy) copies.push_back(e.name + " " + e.detail + " " + std::to_string(e.bytes));
    if (e.kind == lapis::trace::Kind::kernel) kernels.push_back(e.name);
    if (e.kind == lapis::trace::Kind::allocate) allocated += e.bytes;
    if (e.kind == lapis::trace::Kind::free) freed += e.bytes;
    EXPECT_TRUE(e.file.empty());
    EXPECT_EQ(e.thread, 0u);
  }
  const std::vector<std::string> expected_copies{"x host->device 800", "y device->host 800"};
  EXPECT_EQ(copies, apart<Device> ? expected_copies : std::vector<std::string>{});
  EXPECT_EQ(kernels, std::vector<std::string>{"matadd"});
  EXPECT_GT(allocated, 0u);
  EXPECT_EQ(allocated, freed);
  EXPECT_FALSE(lapis::trace::on());
}

TYPED_TEST(DualViewTest, CopiesShareOneState) {
  lapis::DualView<float*, Kokkos::LayoutRight, TypeParam> a("a", 5);
  auto b = a;
  a.view_host()(0) = 1.0f;
  a.modify_host();
  EXPECT_TRUE(b.need_sync_device());
  b.sync_device();
  EXPECT_FALSE(a.need_sync_device());
  EXPECT_EQ(a.transfers(), b.transfers());
}

TYPED_TEST(DualViewTest, DeviceFirstAllocatesHostOnFirstHostAccess) {
  using DV = lapis::DualView<double**, Kokkos::LayoutRight, TypeParam, lapis::sync::Lazy, lapis::alloc::DeviceFirst>;
  DV dv("r", 2, 2);
  EXPECT_TRUE(dv.device_allocated());
  EXPECT_EQ(dv.host_allocated(), !apart<TypeParam>);
  fill_device(dv, 1);
  dv.sync_host();
  auto h = dv.view_host();
  EXPECT_TRUE(dv.host_allocated());
  EXPECT_EQ(h(1, 1), 12.0);
  EXPECT_EQ(dv.transfers(), apart<TypeParam> ? counts(0, 0, 1, 32) : counts(0, 0, 0, 0));

  DV zeros("z", 3, 1);  // unmodified zeros: the host side is zero-filled, not copied
  EXPECT_EQ(zeros.view_host()(2, 0), 0.0);
  EXPECT_EQ(zeros.transfers(), counts(0, 0, 0, 0));
}

TYPED_TEST(DualViewTest, ForOverwriteStartsWithTheDeviceSideModified) {
  using DV = lapis::DualView<double**, Kokkos::LayoutRight, TypeParam, lapis::sync::Lazy, lapis::alloc::DeviceFirst>;
  DV dv(lapis::for_overwrite, "o", 2, 3);
  EXPECT_TRUE(dv.need_sync_host());
  lapis::test::fill_positions(dv.view_device_for_overwrite(), 1.0);
  dv.sync_host();
  EXPECT_EQ(dv.view_host()(1, 2), 5.0);
}

TYPED_TEST(DualViewTest, BorrowedHostMemoryReceivesDeviceResults) {
  std::vector<double> storage(6, 1.5);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
      storage.data(), 2, 3);
  using DV = lapis::DualView<double**, Kokkos::LayoutRight, TypeParam, lapis::sync::Lazy, lapis::alloc::Borrowed>;
  DV dv(host);
  EXPECT_TRUE(dv.need_sync_device());
  EXPECT_EQ(dv.device_allocated(), !apart<TypeParam>);
  dv.sync_device();
  EXPECT_EQ(dv.transfers(), apart<TypeParam> ? counts(1, 48, 0, 0) : counts(0, 0, 0, 0));
  dv.sync_device();
  EXPECT_EQ(dv.transfers().h2d_count, apart<TypeParam> ? 1u : 0u);

  lapis::test::fill_positions(dv.view_device_for_overwrite(), -1.0);
  if (apart<TypeParam>) {
    EXPECT_EQ(storage[5], 1.5);  // stale until synced
  }
  dv.sync_host();
  EXPECT_EQ(storage[5], -5.0);
  EXPECT_EQ(dv.transfers(), apart<TypeParam> ? counts(1, 48, 1, 48) : counts(0, 0, 0, 0));
}

TYPED_TEST(DualViewTest, BorrowedStridedHostIsPackedIntoOneCopy) {
  std::vector<double> storage(12);
  for (int i = 0; i < 12; ++i) storage[i] = i;
  // every other column of a 3x4 row-major array: a 3x2 view with strides (4, 2)
  Kokkos::LayoutStride layout(3, 4, 2, 2);
  Kokkos::View<double**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
      storage.data(), layout);
  using DV = lapis::DualView<double**, Kokkos::LayoutRight, TypeParam, lapis::sync::Lazy, lapis::alloc::Borrowed>;
  DV dv(host);
  dv.sync_device();
  auto d = dv.view_device();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(lapis::test::read_element(d, i, 0), 4 * i);
    EXPECT_EQ(lapis::test::read_element(d, i, 1), 4 * i + 2);
  }
  EXPECT_EQ(dv.transfers(), apart<TypeParam> ? counts(1, 48, 0, 0) : counts(0, 0, 0, 0));

  lapis::test::fill_columns(dv.view_device_for_overwrite(), -2, -1);
  dv.sync_host();
  const std::vector<double> expected = {-2, 1, -1, 3, -2, 5, -1, 7, -2, 9, -1, 11};
  EXPECT_EQ(storage, expected);  // untouched columns stay as they were
}

TYPED_TEST(DualViewTest, ReadOnlyBorrowedHostRejectsWrites) {
  const std::vector<int> storage(4, 3);
  Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(storage.data(), 4);
  using DV = lapis::DualView<int*, Kokkos::LayoutRight, TypeParam, lapis::sync::Lazy, lapis::alloc::Borrowed>;
  DV dv(host);
  EXPECT_THROW(dv.modify_host(), lapis::ReadOnlyError);
  EXPECT_THROW(dv.modify_device(), lapis::ReadOnlyError);
  EXPECT_THROW(dv.view_device_for_overwrite(), lapis::ReadOnlyError);
}

TYPED_TEST(DualViewTest, PinnedHostBehavesLikeMirrored) {
  using DV = lapis::DualView<double*, Kokkos::LayoutRight, TypeParam, lapis::sync::Lazy, lapis::alloc::PinnedHost>;
  DV dv("p", 8);
  dv.view_host()(7) = 2.0;
  dv.modify_host();
  dv.sync_device();
  lapis::test::increment(dv.view_device());
  dv.modify_device();
  dv.sync_host();
  EXPECT_EQ(dv.view_host()(7), 3.0);
  EXPECT_EQ(dv.transfers(), apart<TypeParam> ? counts(1, 64, 1, 64) : counts(0, 0, 0, 0));
}

TYPED_TEST(DualViewTest, EagerSyncsAtModify) {
  using DV = lapis::DualView<double**, Kokkos::LayoutLeft, TypeParam, lapis::sync::Eager>;
  DV dv("e", 3, 2);
  dv.view_host()(2, 1) = 4.0;
  dv.modify_host();
  EXPECT_FALSE(dv.need_sync_device());
  EXPECT_EQ(dv.transfers(), apart<TypeParam> ? counts(1, 48, 0, 0) : counts(0, 0, 0, 0));
  fill_device(dv, 0);
  EXPECT_FALSE(dv.need_sync_host());
  EXPECT_EQ(dv.transfers(), apart<TypeParam> ? counts(1, 48, 1, 48) : counts(0, 0, 0, 0));
  EXPECT_EQ(dv.view_host()(2, 1), 21.0);  // already synced: Eager copied at modify_device
}

TYPED_TEST(DualViewTest, ManualKernelsRejectStaleInputs) {
  using DV = lapis::DualView<double*, Kokkos::LayoutRight, TypeParam, lapis::sync::Manual>;
  DV x("x", 2), y("y", 2), sum("sum", 2);
  x.view_host()(0) = 1.0;
  x.modify_host();
  EXPECT_THROW(lapis::kernels::matadd(x, y, sum), lapis::StaleAccessError);  // aliased sides too
  EXPECT_EQ(x.transfers(), counts(0, 0, 0, 0));
  EXPECT_FALSE(sum.need_sync_host());  // the output is untouched
  x.sync_device();
  EXPECT_NO_THROW(lapis::kernels::matadd(x, y, sum));
}

TYPED_TEST(DualViewTest, ModifyingBothSidesIsAnError) {
  lapis::DualView<double*, Kokkos::LayoutRight, TypeParam> dv("c", 3);
  dv.modify_host();
  EXPECT_THROW(dv.modify_device(), lapis::ConcurrentModificationError);  // aliased sides too
  dv.sync_device();
  EXPECT_NO_THROW(dv.modify_device());
}

TYPED_TEST(DualViewTest, AsyncSyncOnAnExecutionSpaceInstance) {
  lapis::DualView<double*, Kokkos::LayoutRight, TypeParam> dv("x", 16);
  dv.view_host()(15) = 9.0;
  dv.modify_host();
  typename TypeParam::execution_space exec;
  dv.sync_device(exec);
  exec.fence();
  EXPECT_FALSE(dv.need_sync_device());
  EXPECT_EQ(dv.transfers().h2d_bytes, apart<TypeParam> ? 128u : 0u);
}

TYPED_TEST(DualViewTest, ProcessWideStatisticsAndLiveAllocations) {
  const auto allocations = lapis::live_allocations();
  const auto before = lapis::process_transfer_stats();
  {
    lapis::DualView<double*, Kokkos::LayoutRight, TypeParam> dv("s", 10);
    EXPECT_EQ(lapis::live_allocations(), allocations + (apart<TypeParam> ? 2 : 1));
    dv.modify_host();
    dv.sync_device();
  }
  EXPECT_EQ(lapis::live_allocations(), allocations);
  EXPECT_EQ(lapis::process_transfer_stats() - before, apart<TypeParam> ? counts(1, 80, 0, 0) : counts(0, 0, 0, 0));
}

TYPED_TEST(DualViewTest, EmptyAndScalarArrays) {
  lapis::DualView<double**, Kokkos::LayoutRight, TypeParam> empty("e", 0, 5);
  empty.modify_host();
  empty.sync_device();
  EXPECT_EQ(empty.transfers(), counts(0, 0, 0, 0));  // zero bytes are never a transfer
  lapis::DualView<double, Kokkos::LayoutRight, TypeParam> scalar("s");
  scalar.view_host()() = 3.0;
  scalar.modify_host();
  scalar.sync_device();
  EXPECT_EQ(scalar.transfers(), apart<TypeParam> ? counts(1, 8, 0, 0) : counts(0, 0, 0, 0));
}

}  // namespace

namespace {

// A typed DualView adopts a buffer made elsewhere (here: by another typed DualView, as a Python
// DualView's or another module's would be) and shares everything with it; mismatches throw.
TYPED_TEST(DualViewTest, AdoptsAnExistingBufferAndRefusesMismatches) {
  using Device = TypeParam;
  using Matrix = lapis::DualView<double**, Kokkos::LayoutRight, Device>;
  Matrix made("made", 2, 3);
  made.view_host()(1, 2) = 4.0;
  made.modify_host();
  const std::shared_ptr<lapis::AnyDualBuffer> erased = made.buffer();
  Matrix adopted(erased);
  EXPECT_EQ(adopted.buffer(), made.buffer());
  adopted.sync_device();  // syncs the shared state
  EXPECT_EQ(lapis::test::read_element(adopted.view_device(), 1, 2), 4.0);
  EXPECT_FALSE(made.need_sync_device());
  EXPECT_EQ(made.transfers(), apart<Device> ? counts(1, 48, 0, 0) : counts(0, 0, 0, 0));

  using Strided = lapis::DualView<double**, Kokkos::LayoutRight, Device, lapis::sync::Lazy, lapis::alloc::Borrowed>;
  EXPECT_EQ(Strided(erased).extent(1), 3u);  // LayoutStride views take contiguous sides too
  EXPECT_THROW((lapis::DualView<float**, Kokkos::LayoutRight, Device>(erased)), std::invalid_argument);
  EXPECT_THROW((lapis::DualView<std::int64_t**, Kokkos::LayoutRight, Device>(erased)), std::invalid_argument);
  EXPECT_THROW((lapis::DualView<double*, Kokkos::LayoutRight, Device>(erased)), std::invalid_argument);
  EXPECT_THROW((lapis::DualView<double**, Kokkos::LayoutLeft, Device>(erased)), std::invalid_argument);
  EXPECT_THROW((lapis::DualView<double**, Kokkos::LayoutRight, Device, lapis::sync::Lazy, lapis::alloc::PinnedHost>(
                   std::shared_ptr<lapis::AnyDualBuffer>())),
               std::invalid_argument);
}

}  // namespace

namespace {

// Streaming stores (a large download's unpack) write exactly what memcpy writes, at any alignment
// and length, and into strided host memory as the ordinary unpack does.
TEST(StagedCopy, StreamingUnpackWritesWhatMemcpyWrites) {
  std::vector<unsigned char> source(5000);
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>(i * 7 + 3);
  for (std::size_t offset = 0; offset < 16; ++offset) {
    for (std::size_t bytes : {0, 1, 15, 63, 64, 65, 1000, 4099}) {
      std::vector<unsigned char> streamed(4200, 0xEE), copied(4200, 0xEE);
      lapis::detail::streaming_copy(streamed.data() + offset, source.data() + 1, bytes);
      std::memcpy(copied.data() + offset, source.data() + 1, bytes);
      EXPECT_EQ(streamed, copied) << "offset " << offset << ", " << bytes << " bytes";
    }
  }
  // elements 5 .. 60 of a transposed 7 x 9 array of doubles (strides 8 and 72 bytes), unpacked
  lapis::Shape shape{};
  shape.rank = 2, shape.extents[0] = 9, shape.extents[1] = 7, shape.itemsize = sizeof(double);
  const lapis::Strides strides{8, 72};
  std::vector<double> packed(56), streamed(63, -1.0), copied(63, -1.0);
  for (std::size_t i = 0; i < packed.size(); ++i) packed[i] = 0.5 * i;
  const auto unpack = [&](std::vector<double>& into, bool streaming) {
    lapis::detail::copy_element_range(reinterpret_cast<unsigned char*>(packed.data()),
                                      reinterpret_cast<unsigned char*>(into.data()), strides, shape, 5, 56, false,
                                      streaming);
  };
  unpack(streamed, true);
  unpack(copied, false);
  EXPECT_EQ(streamed, copied);
  EXPECT_EQ(copied[5 / 7 + 9 * (5 % 7)], 0.0);  // element 5 in C order over (9, 7): [0][5]
}

// free_device_side gives back a device side that holds nothing the host side lacks and that only
// lapis uses; the next device access allocates it and copies the host side up, once.
TYPED_TEST(DualViewTest, FreeDeviceSideOnlyWhenTheHostSideHoldsEverything) {
  std::vector<double> storage = {0.0, 1.0, 2.0, 3.0, 4.0, 5.0};
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
      storage.data(), 2, 3);
  using DV = lapis::DualView<double**, Kokkos::LayoutRight, TypeParam, lapis::sync::Lazy, lapis::alloc::Borrowed>;
  using lapis::detail::LaunchViews;
  DV dv(host);
  const auto live = [] { return lapis::detail::live_counter().allocations.load(); };
  const auto before = live();
  LaunchViews::output(dv);  // a kernel's write: device changes the host side lacks
  EXPECT_FALSE(dv.buffer()->free_device_side());
  dv.sync_host();
  EXPECT_EQ(dv.buffer()->free_device_side(), apart<TypeParam>);  // one memory: nothing of its own
  if (!apart<TypeParam>) return;
  EXPECT_FALSE(dv.device_allocated());
  EXPECT_EQ(live(), before);
  EXPECT_TRUE(dv.need_sync_device());
  storage[5] = -5.0;
  LaunchViews::input(dv);  // a kernel's read: allocated and filled anew, once
  EXPECT_TRUE(dv.device_allocated());
  EXPECT_EQ(dv.transfers(), counts(1, 48, 1, 48));
  EXPECT_EQ(lapis::test::read_element(dv.view_device(), 1, 2), -5.0);
  EXPECT_FALSE(dv.buffer()->free_device_side());  // its address was handed out, to be kept
  EXPECT_TRUE(dv.device_allocated());
}

// device_version names the device side's contents while lapis sees every write there: a new one at
// each write, the same across reads, 0 for good once memory that may be written unseen is involved.
TYPED_TEST(DualViewTest, DeviceVersionChangesWithEveryWriteLapisSees) {
  using Vector = lapis::DualView<double*, Kokkos::LayoutRight, TypeParam>;
  using lapis::detail::LaunchViews;
  Vector x("x", 3);
  const auto version = [&] { return x.buffer()->device_version(); };
  const std::uint64_t made = version();
  EXPECT_NE(made, 0u);
  LaunchViews::input(x);  // a kernel's read
  EXPECT_EQ(version(), made);
  LaunchViews::output(x);  // a kernel's write
  const std::uint64_t written = version();
  EXPECT_NE(written, made);
  x.sync_host();
  EXPECT_EQ(version(), written);
  x.modify_host();  // where the sides alias, the host side is the device side
  EXPECT_EQ(version() == written, apart<TypeParam>);
  LaunchViews::input(x);  // apart: the upload writes the device side
  const std::uint64_t uploaded = version();
  EXPECT_NE(uploaded, written);
  EXPECT_NE(Vector("y", 3).buffer()->device_version(), uploaded);  // never given twice
  (void)x.view_host();  // a view handed out reaches the device side where the sides alias
  EXPECT_EQ(version(), apart<TypeParam> ? uploaded : 0u);
  (void)x.view_device();
  EXPECT_EQ(version(), 0u);
  LaunchViews::output(x);
  EXPECT_EQ(version(), 0u);

  using Borrowing = lapis::DualView<double*, Kokkos::LayoutRight, TypeParam, lapis::sync::Lazy, lapis::alloc::Borrowed>;
  Kokkos::View<double*, Kokkos::HostSpace> memory("memory", 3);
  Borrowing borrowed(memory);
  LaunchViews::input(borrowed);
  EXPECT_EQ(borrowed.buffer()->device_version() != 0, apart<TypeParam>);  // its owner writes it at will
}

// The transfer guard refuses implicit copies (a kernel argument's, a policy's) before anything
// moves, logs them when asked, and always lets sync calls through. Where the sides alias nothing is
// ever copied, so nothing is ever refused.
// Kokkos Tools' DualView events seen by the access test.
int tools_modifies = 0, tools_syncs = 0;

// One access syncs, marks and hands out a view (Tpetra's access modes); every mark it makes is a
// Kokkos Tools modifyDualView event, the overwrite of a kernel's output included.
TYPED_TEST(DualViewTest, OneAccessSyncsMarksAndHandsOutTheView) {
  using Vector = lapis::DualView<double*, Kokkos::LayoutRight, TypeParam>;
  tools_modifies = tools_syncs = 0;
  Kokkos::Tools::Experimental::set_dual_view_modify_callback([](const char*, const void*, bool) { ++tools_modifies; });
  Kokkos::Tools::Experimental::set_dual_view_sync_callback([](const char*, const void*, bool) { ++tools_syncs; });
  Vector x("x", 3);
  x.view_host(lapis::Access::write)(1) = 5.0;  // marked in the same step: no modify_host() to forget
  EXPECT_TRUE(x.need_sync_device());
  EXPECT_EQ(tools_modifies, 1);
  {
    const lapis::ScopedTransferGuard refuse({lapis::GuardLevel::disallow, lapis::GuardLevel::disallow});
    if (apart<TypeParam>) {
      EXPECT_THROW(x.view_device(lapis::Access::read), lapis::TransferGuardError);  // a read's copy is implicit
      EXPECT_TRUE(x.need_sync_device());
    }
    EXPECT_NO_THROW(x.view_device());  // a plain accessor copies nothing
  }
  x.view_device(lapis::Access::read);
  EXPECT_FALSE(x.need_sync_device());
  EXPECT_EQ(x.transfers(), apart<TypeParam> ? counts(1, 24, 0, 0) : counts(0, 0, 0, 0));
  EXPECT_EQ(tools_syncs, 1);
  x.view_device(lapis::Access::overwrite);  // a kernel's output: marked, nothing copied
  EXPECT_TRUE(x.need_sync_host());
  EXPECT_EQ(tools_modifies, 2);
  EXPECT_THROW(x.view_host(lapis::Access::mark), std::invalid_argument);
  lapis::DualView<double*, Kokkos::LayoutRight, TypeParam, lapis::sync::Manual> manual(x.buffer());
  EXPECT_THROW(manual.view_host(lapis::Access::read), lapis::StaleAccessError);  // Manual never copies by itself
  manual.sync_host();
  EXPECT_EQ(manual.view_host(lapis::Access::read)(1), 5.0);
  Kokkos::Tools::Experimental::set_dual_view_modify_callback(nullptr);
  Kokkos::Tools::Experimental::set_dual_view_sync_callback(nullptr);
}

bool same_levels(const lapis::TransferGuard& a, const lapis::TransferGuard& b) {
  return a.host_to_device == b.host_to_device && a.device_to_host == b.device_to_host;
}

TYPED_TEST(DualViewTest, TheTransferGuardStopsOnlyImplicitCopies) {
  using Vector = lapis::DualView<double*, Kokkos::LayoutRight, TypeParam>;
  Vector x("x", 4), y("y", 4), sum("sum", 4);
  x.view_host()(1) = 2.0;
  x.modify_host();
  const lapis::TransferGuard refuse_uploads{lapis::GuardLevel::disallow, lapis::GuardLevel::allow};
  {
    const lapis::ScopedTransferGuard guard(refuse_uploads);
    EXPECT_TRUE(same_levels(lapis::current_transfer_guard(), refuse_uploads));
    if (apart<TypeParam>) {
      EXPECT_THROW(lapis::kernels::matadd(x, y, sum), lapis::TransferGuardError);
      EXPECT_TRUE(x.need_sync_device());  // nothing moved, nothing marked
      EXPECT_FALSE(sum.need_sync_host());
    }
    x.sync_device();  // explicit
    EXPECT_NO_THROW(lapis::kernels::matadd(x, y, sum));
    EXPECT_NO_THROW(sum.view_host());  // no copy: views never sync
    {
      const lapis::ScopedTransferGuard inner({lapis::GuardLevel::allow, lapis::GuardLevel::disallow});
      lapis::DualView<double*, Kokkos::LayoutRight, TypeParam, lapis::sync::Eager> eager(sum.buffer());
      if (apart<TypeParam>) {
        EXPECT_THROW(eager.modify_device(), lapis::TransferGuardError);  // a policy's copy is implicit
      }
    }
    EXPECT_TRUE(same_levels(lapis::current_transfer_guard(), refuse_uploads));  // the inner scope restored it
    sum.sync_host();
  }
  EXPECT_TRUE(same_levels(lapis::current_transfer_guard(), lapis::process_transfer_guard()));
  EXPECT_EQ(sum.view_host()(1), 2.0);

  testing::internal::CaptureStderr();
  lapis::set_process_transfer_guard({lapis::GuardLevel::log, lapis::GuardLevel::log});
  x.view_host()(2) = 1.0;
  x.modify_host();
  lapis::kernels::matadd(x, y, sum);
  lapis::set_process_transfer_guard({});
  const std::string logged = testing::internal::GetCapturedStderr();
  EXPECT_EQ(logged, apart<TypeParam>
                        ? "lapis: transfer guard: implicit host->device copy of \"x\" (float64, shape (4,), 32 bytes)\n"
                        : "");
}

}  // namespace

namespace {

// A BufferPart (what Python's slicing and reshape make) adopted by typed code is a subview: its
// views are the part's memory, and its state is the whole allocation's.
TYPED_TEST(DualViewTest, BufferPartsAreAdoptedAsSubviews) {
  using Matrix = lapis::DualView<double**, Kokkos::LayoutRight, TypeParam>;
  using Strided = lapis::DualView<double*, Kokkos::LayoutStride, TypeParam>;
  Matrix whole("whole", 3, 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) whole.view_host()(i, j) = 10 * i + j;
  whole.modify_host();
  const std::shared_ptr<lapis::AnyDualBuffer> erased = whole.buffer();
  // whole[1:3, 2]: a strided column part
  auto column = lapis::slice(erased, {{false, 1, 3, 1}, {true, 2, 0, 1}});
  EXPECT_EQ(column->shape().rank, 1u);
  EXPECT_EQ(column->shape().extents[0], 2u);
  EXPECT_THROW(Matrix{column}, std::invalid_argument);                                                      // rank 1
  EXPECT_THROW((lapis::DualView<double*, Kokkos::LayoutRight, TypeParam>{column}), std::invalid_argument);  // strided
  Strided part(column);
  EXPECT_EQ(part.extent(0), 2u);
  EXPECT_EQ(part.view_device().stride(0), 4u);
  part.sync_device();  // the whole allocation, once
  EXPECT_EQ(whole.transfers(), apart<TypeParam> ? counts(1, 96, 0, 0) : counts(0, 0, 0, 0));
  EXPECT_EQ(lapis::test::read_element(whole.view_device(), 2, 2), 22.0);
  EXPECT_EQ(part.view_device().data(), whole.view_device().data() + 1 * 4 + 2);  // no device access from the host
  EXPECT_EQ(part.view_host()(0), 12.0);
  // a kernel writing the part leaves the rest of the whole array as it was
  Strided doubled(lapis::slice(erased, {{false, 0, 3, 2}, {true, -1, 0, 1}}));  // whole[0:3:2, -1]
  lapis::kernels::matadd(part, part, doubled);
  whole.sync_host();
  EXPECT_EQ(whole.view_host()(0, 3), 24.0);
  EXPECT_EQ(whole.view_host()(2, 3), 44.0);
  EXPECT_EQ(whole.view_host()(1, 3), 13.0);
  auto flat = lapis::reshape(erased, {-1});
  EXPECT_EQ(flat->shape().extents[0], 12u);
  using Vector = lapis::DualView<double*, Kokkos::LayoutRight, TypeParam>;
  EXPECT_EQ(Vector(flat).view_host()(7), 13.0);
  EXPECT_THROW(lapis::reshape(column, {2}), std::invalid_argument);  // not contiguous
  EXPECT_THROW(lapis::reshape(erased, {5, -1}), std::invalid_argument);
  EXPECT_THROW(lapis::slice(erased, {{true, 3, 0, 1}, {true, 0, 0, 1}}), std::out_of_range);
  EXPECT_EQ(lapis::slice(erased, {{false, 2, 1, 1}, {true, 0, 0, 1}})->shape().extents[0], 0u);  // as Python's [2:1]
  EXPECT_THROW(lapis::slice(erased, {{false, 0, 4, 1}, {true, 0, 0, 1}}), std::out_of_range);
  EXPECT_THROW(lapis::slice(erased, {{false, 0, 3, -1}, {true, 0, 0, 1}}), std::invalid_argument);
}

// A part of a buffer is one thing however it was made: a C++ subview and a Python-style slice of the
// same elements are equal parts, and each hands out itself as its buffer.
TYPED_TEST(DualViewTest, SubviewsAndSlicesAreTheSamePart) {
  using Matrix = lapis::DualView<double**, Kokkos::LayoutRight, TypeParam>;
  Matrix whole("whole", 10, 6);
  auto sub = lapis::subview(whole, std::make_pair(2, 5), 4);  // whole[2:5, 4]
  const auto sliced = lapis::slice(whole.buffer(), {{false, 2, 5, 1}, {true, 4, 0, 1}});
  const std::shared_ptr<lapis::AnyDualBuffer> buffer = sub.buffer();
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(buffer->shape().rank, 1u);
  EXPECT_EQ(buffer->shape().extents[0], 3u);  // the part, not the 60-element whole
  EXPECT_EQ(lapis::whole_of(buffer), lapis::whole_of(sliced));
  for (lapis::Side side : lapis::both_sides) {
    EXPECT_EQ(lapis::location_of(*buffer).offset_of(side), lapis::location_of(*sliced).offset_of(side));
    EXPECT_EQ(lapis::location_of(*buffer).strides_of(side)[0], lapis::location_of(*sliced).strides_of(side)[0]);
    EXPECT_EQ(lapis::location_of(*buffer).offset_of(side), static_cast<std::ptrdiff_t>((2 * 6 + 4) * sizeof(double)));
  }
  using Column = lapis::DualView<double*, Kokkos::LayoutStride, TypeParam>;
  Column adopted(sliced);
  adopted.view_host()(1) = 9.0;
  adopted.modify_host();
  EXPECT_EQ(sub.view_host()(1), 9.0);
  EXPECT_EQ(whole.view_host()(3, 4), 9.0);
  EXPECT_TRUE(whole.need_sync_device());
}

}  // namespace
