// LAPIS's support surface (lapis/interop/lapis_compat.hpp) as emitted code and LAPIS's drivers use
// it, on lapis's state. The program is shaped as an emitted module with a driver: it defines
// lapis_initialize / lapis_finalize as the emitter writes them (Kokkos started and finalized by the
// module, lapis's runtime attached to it). meson runs it on the default device and on the simulated
// one (LAPIS_DEVICE=simulated), where every sync is a real copy.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>
#include <utility>

#include "lapis/interop/lapis_compat.hpp"

extern "C" void lapis_initialize() {
  if (!Kokkos::is_initialized()) Kokkos::initialize();
}

extern "C" void lapis_finalize() {
  LAPIS::alives.clear();
  Kokkos::finalize();
}

namespace {

using Vector = LAPIS::DualView<double*, Kokkos::LayoutRight>;
using Matrix = LAPIS::DualView<double**, Kokkos::LayoutRight>;

bool apart() { return !lapis::sides_alias<lapis::DefaultDevice>(); }

// One element of a device View, read or written from the host by a copy: on a GPU build the host
// cannot dereference device memory (emitted code touches it only in kernels).
template <class View, class... Index>
auto element_view(const View& view, Index... index) {
  if constexpr (sizeof...(Index) == 0) return view;  // rank 0 already
  else return Kokkos::subview(view, index...);
}
template <class View, class... Index>
typename View::non_const_value_type device_element(const View& view, Index... index) {
  typename View::non_const_value_type value;
  Kokkos::deep_copy(value, element_view(view, index...));
  return value;
}
template <class View, class... Index>
void set_device_element(const View& view, typename View::non_const_value_type value, Index... index) {
  Kokkos::deep_copy(element_view(view, index...), value);
}

lapis::TransferStats copies(std::uint64_t h2d, std::uint64_t h2d_bytes, std::uint64_t d2h, std::uint64_t d2h_bytes) {
  return apart() ? lapis::TransferStats{h2d, h2d_bytes, d2h, d2h_bytes} : lapis::TransferStats{};
}

TEST(LapisCompat, ANewArraySyncsAndCountsLikeAnyDualView) {
  Vector a(std::string("a"), 4);
  EXPECT_EQ(a.extent(0), 4u);
  EXPECT_FALSE(a.modifiedHost() || a.modifiedDevice());  // LAPIS's flags after the label constructor
  a.host_view()(1) = 2.0;
  a.modifyHost();
  EXPECT_TRUE(a.modifiedHost());
  EXPECT_FALSE(a.modifiedDevice());
  a.syncDevice();
  EXPECT_FALSE(a.modifiedHost());
  EXPECT_EQ(device_element(a.device_view(), 1), 2.0);
  a.syncDevice();  // current: nothing moves
  EXPECT_EQ(a.buffer()->transfers(), copies(1, 32, 0, 0));
  Matrix m("m", 3, 5);
  EXPECT_EQ(m.extent(1), 5u);
  EXPECT_EQ(m.stride(0), 5u);
  EXPECT_EQ(m.extent(2), 1u);  // past the rank, as Kokkos has it
}

// The emitter writes static extents for shapes it knows (float[8748][91]), and rank 0 for scalars.
TEST(LapisCompat, StaticExtentsAndRankZeroNeedOnlyALabel) {
  LAPIS::DualView<float[6][4], Kokkos::LayoutRight> fixed(std::string("fixed"));
  EXPECT_EQ(fixed.extent(0), 6u);
  EXPECT_EQ(fixed.stride(0), 4u);
  set_device_element(fixed.device_view(), 7.0f, 5, 3);
  fixed.modifyDevice();
  fixed.syncHost();
  EXPECT_EQ(fixed.host_view()(5, 3), 7.0f);
  EXPECT_EQ(fixed.buffer()->transfers(), copies(0, 0, 1, 96));
  LAPIS::DualView<float, Kokkos::LayoutRight> scalar(std::string("scalar"));
  set_device_element(scalar.device_view(), 1.5f);
  scalar.modifyDevice();
  scalar.syncHost();
  EXPECT_EQ(scalar.host_view()(), 1.5f);
  EXPECT_EQ(scalar.extent(0), 1u);
}

// A strided subview as the emitter writes it after expand-strided-metadata: a rank-0 child at the
// source's data (extract_strided_metadata), then a LayoutStride grandchild of it (reinterpret_cast);
// and a reshape: a LayoutRight child. Each is a part of the whole allocation, sharing its state.
TEST(LapisCompat, ChildrenAsTheEmitterWritesThemAreParts) {
  Matrix v1("v1", 4, 6);
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  Kokkos::View<double, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v7_d_temp(v1.device_view().data());
  Kokkos::View<double, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace> v7_h_temp(v1.host_view().data());
  LAPIS::DualView<double, Kokkos::LayoutRight> v7(v7_d_temp, v7_h_temp, v1);
  auto v7_d = v7.device_view();
  auto v7_h = v7.host_view();
  Kokkos::LayoutStride v10_layout(2, 6, 3, 2);  // rows 0-1, every other column from column 1
  Kokkos::View<double**, Kokkos::LayoutStride, Kokkos::DefaultHostExecutionSpace> v10_host(v7_h.data() + 1, v10_layout);
  Kokkos::View<double**, Kokkos::LayoutStride, Kokkos::DefaultExecutionSpace> v10_device(v7_d.data() + 1, v10_layout);
  LAPIS::DualView<double**, Kokkos::LayoutStride> v10(v10_device, v10_host, v7);
  auto v10_h = v10.host_view();
  EXPECT_EQ(v10.extent(0), 2u);
  EXPECT_EQ(v10.extent(1), 3u);
  EXPECT_EQ(v10.stride(1), 2u);
  EXPECT_EQ(v10.buffer()->shape().extents[1], 3u);  // its buffer is the part, of the one whole
  EXPECT_EQ(lapis::whole_of(v10.buffer()), lapis::whole_of(v1.buffer()));
  v10_h(1, 2) = 8.0;  // v1(1, 5)
  v10.modifyHost();
  EXPECT_TRUE(v1.modifiedHost());  // the grandchild marked the whole allocation
  v1.syncDevice();
  EXPECT_EQ(device_element(v1_d, 1, 5), 8.0);
  EXPECT_EQ(v1.buffer()->transfers(), copies(1, 192, 0, 0));  // one whole copy

  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace> v12_host(v1_h.data(), 24);
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v12_device(v1_d.data(), 24);
  LAPIS::DualView<double*, Kokkos::LayoutRight> v12(v12_device, v12_host, v1);
  EXPECT_EQ(device_element(v12.device_view(), 11), 8.0);
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace> outside_host(v1_h.data() + 1, 24);
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> outside_device(v1_d.data() + 1, 24);
  EXPECT_THROW(Vector(outside_device, outside_host, v1), std::invalid_argument);
}

// A sibling's pending change survives another child's sync (lapis syncs the whole allocation).
TEST(LapisCompat, ChildrenKeepSiblingsChanges) {
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
  left.syncDevice();
  EXPECT_FALSE(right.modifiedHost());
  EXPECT_EQ(device_element(parent.device_view(), 9), 2.0);
}

// The emitter returns plain Views as DualView results, alone or in a tuple, assigns a View to a
// DualView, and passes a host View (numpy's memory) for a DualView parameter: all implicit.
Vector returned_view(std::size_t n) {
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v9(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v9")), n);
  Kokkos::deep_copy(v9, 3.0);
  return v9;
}
std::tuple<Vector, double> returned_tuple(Vector v1) {
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace> v3(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v3")), v1.extent(0));
  v1.syncHost();
  for (std::size_t i = 0; i < v3.extent(0); ++i) v3(i) = 2 * v1_h(i);
  return std::make_tuple(v3, 4.5);
}

TEST(LapisCompat, ViewsBecomeDualViewsImplicitlyWithLapisFlags) {
  Vector v5 = returned_view(3);
  EXPECT_TRUE(v5.modifiedDevice());  // the view lived on the device: that side holds the data
  v5.syncHost();
  EXPECT_EQ(v5.host_view()(2), 3.0);
  Vector v6;
  double v7 = 0;
  std::tie(v6, v7) = returned_tuple(v5);
  EXPECT_EQ(v7, 4.5);
  // on a CPU build a host View is a View of the device's memory space: LAPIS's header takes it for
  // the device side, and so does lapis (on a GPU build it is the host side)
  constexpr bool cpu_build = std::is_same_v<Vector::DeviceView::memory_space, Vector::HostView::memory_space>;
  EXPECT_EQ(v6.modifiedDevice(), cpu_build);
  v6.syncDevice();
  EXPECT_EQ(device_element(v6.device_view(), 1), 6.0);

  double numpy_memory[3] = {1, 2, 3};
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      param0_smr(numpy_memory, 3);
  const auto before = lapis::process_transfer_stats();
  auto results = returned_tuple(param0_smr);  // a parameter's DualView over the caller's memory
  std::get<0>(results).syncHost();            // as a py_ entry point reads a result
  EXPECT_EQ(std::get<0>(results).host_view()(2), 6.0);
  // memory the view does not own is the caller's host memory where the sides are apart (the
  // simulated device, a GPU): read on the host, the parameter is not copied; the host View the
  // function returned is the device side on a CPU build (see above), which the sync downloads
  EXPECT_EQ(lapis::process_transfer_stats() - before, copies(0, 0, cpu_build ? 1 : 0, cpu_build ? 24 : 0));
  Vector assigned;
  assigned = Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>(numpy_memory, 3);
  EXPECT_EQ(assigned.host_view().data(), numpy_memory);
}

TEST(LapisCompat, MarkingBothSidesThrowsInsteadOfLosingAChange) {
  Vector a("a", 2);
  a.modifyHost();
  EXPECT_THROW(a.modifyDevice(), lapis::ConcurrentModificationError);
}

TEST(LapisCompat, AnOutputSyncsItsHostSideWhenItsHandleDiesAndNeverThrows) {
  Vector out("out", 2);
  {
    Vector handle = out;
    handle.syncHostOnDestroy();
    set_device_element(handle.device_view(), 3.0, 0);
    handle.modifyDevice();
  }
  EXPECT_FALSE(out.modifiedDevice());
  EXPECT_EQ(out.host_view()(0), 3.0);
  EXPECT_EQ(out.buffer()->transfers(), copies(0, 0, 1, 16));
  if (!apart()) return;
  testing::internal::CaptureStderr();
  {
    const lapis::ScopedTransferGuard refuse({lapis::GuardLevel::disallow, lapis::GuardLevel::disallow});
    Vector handle = out;
    handle.syncHostOnDestroy();
    handle.modifyDevice();
  }  // the refused sync is reported, not thrown from the destructor
  EXPECT_NE(testing::internal::GetCapturedStderr().find("could not sync its host side"), std::string::npos);
  EXPECT_TRUE(out.modifiedDevice());
}

TEST(LapisCompat, KeepAliveHoldsUntilAlivesIsClearedAndNothingLeaks) {
  const auto live = lapis::live_allocations();
  {
    Vector kept("kept", 8);
    kept.host_view()(0) = 1.0;
    LAPIS::keepAlive(kept.host_view());
    kept.keepAliveHost();
  }
  EXPECT_GT(lapis::live_allocations(), live);
  LAPIS::alives.clear();
  EXPECT_EQ(lapis::live_allocations(), live);
  Vector a("a", 4), b("b", 4);
  a = b;  // assigning over the last handle frees it
  b.deallocate();
  EXPECT_NE(a.buffer(), nullptr);
  a.deallocate();
  EXPECT_EQ(a.buffer(), nullptr);
  a.syncDevice();  // an empty handle: nothing to do
  EXPECT_EQ(lapis::live_allocations(), live);
}

TEST(LapisCompat, MemrefDescriptorsBothWays) {
  double data[12];
  for (int i = 0; i < 12; ++i) data[i] = i;
  StridedMemRefType<double, 2> columns{data, data, 1, {3, 2}, {4, 2}};  // every other column, from 1
  using Strided = Kokkos::View<double**, Kokkos::LayoutStride, Kokkos::DefaultHostExecutionSpace>;
  const Strided view = LAPIS::stridedMemrefToView<Strided>(columns);
  EXPECT_EQ(view(2, 1), 11.0);
  using Right = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>;
  EXPECT_THROW(LAPIS::stridedMemrefToView<Right>(columns), std::invalid_argument);  // LAPIS aborts here
  StridedMemRefType<double, 2> whole{data, data, 0, {3, 4}, {4, 1}};
  const auto back = LAPIS::viewToStridedMemref(LAPIS::stridedMemrefToView<Right>(whole));
  EXPECT_EQ(back.data, data);
  EXPECT_EQ(back.sizes[1], 4);
  EXPECT_EQ(back.strides[0], 4);
  StridedMemRefType<double, 0> scalar{data, data, 5};
  using Scalar = Kokkos::View<double, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>;
  EXPECT_EQ(LAPIS::stridedMemrefToView<Scalar>(scalar)(), 5.0);
  EXPECT_EQ(sizeof(StridedMemRefType<double, 0>), 24u);  // MLIR's rank-0 layout: no sizes or strides
  using Fixed = Kokkos::View<double[3][4], Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>;
  EXPECT_EQ(LAPIS::stridedMemrefToView<Fixed>(whole)(2, 3), 11.0);
  StridedMemRefType<double, 1> negative{data, data, 11, {3}, {-1}};
  using Column = Kokkos::View<double*, Kokkos::LayoutStride, Kokkos::DefaultHostExecutionSpace>;
  EXPECT_THROW(LAPIS::stridedMemrefToView<Column>(negative), std::invalid_argument);
}

// atomic_minnum / maxnum as IEEE minNum / maxNum, on the device; the team helpers' types and values.
double reduce_with_maxnum(const Kokkos::View<const double*, Kokkos::DefaultExecutionSpace>& values, bool minimum) {
  Kokkos::View<double, Kokkos::DefaultExecutionSpace> result("result");
  Kokkos::deep_copy(result, std::numeric_limits<double>::quiet_NaN());
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, values.extent(0)), KOKKOS_LAMBDA(std::size_t i) {
        if (minimum) LAPIS::atomic_minnum(&result(), values(i));
        else LAPIS::atomic_maxnum(&result(), values(i));
      });
  double host = 0;
  Kokkos::deep_copy(host, result);
  return host;
}

TEST(LapisCompat, MinNumMaxNumAndTeamHelpers) {
  Kokkos::View<double*, Kokkos::DefaultExecutionSpace> values("values", 5);
  auto host = Kokkos::create_mirror_view(values);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double items[5] = {3, nan, -2, 7, nan};
  for (int i = 0; i < 5; ++i) host(i) = items[i];
  Kokkos::deep_copy(values, host);
  EXPECT_EQ(reduce_with_maxnum(values, false), 7.0);  // a NaN loses to any number
  EXPECT_EQ(reduce_with_maxnum(values, true), -2.0);
  EXPECT_EQ(LAPIS::threadParallelVectorLength(0), 1);
  EXPECT_EQ(LAPIS::threadParallelVectorLength(6), 1);
  EXPECT_GE(LAPIS::threadParallelVectorLength(1 << 20), 1);
  EXPECT_LE(LAPIS::threadParallelVectorLength(1 << 20), LAPIS::TeamPolicy::vector_length_max());
  static_assert(std::is_same_v<LAPIS::TeamMember, Kokkos::TeamPolicy<>::member_type>);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  lapis_initialize();
  const int status = RUN_ALL_TESTS();
  lapis_finalize();
  return status;
}
