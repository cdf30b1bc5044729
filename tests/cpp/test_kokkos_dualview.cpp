// Kokkos's own DualView unit tests (containers/unit_tests/TestDualView.hpp in Kokkos 4.x), ported
// to lapis::DualView by renaming the type: each test below checks what the Kokkos test of the same
// name checks, written anew from its semantics. They run on the default device, as Kokkos's run on
// its test execution space. Where lapis keeps a stronger rule, the check says so. After them, tests
// of those stronger rules and of the rest of the Kokkos-compatible surface.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lapis/dualview.hpp"
#include "lapis/interop/kokkos_dual_view.hpp"
#include "lapis/runtime/runtime.hpp"

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using HostExec = Kokkos::DefaultHostExecutionSpace;

template <class T>
using Matrix = lapis::DualView<T**, Kokkos::LayoutLeft, Exec>;

// Elements of a rank-2 view that differ from `value`, counted on the view's own execution space.
// (Kernels live in free functions: CUDA forbids device lambdas in a test body.)
template <class View>
int count_not_equal(const View& v, int value) {
  int errors = 0;
  Kokkos::parallel_reduce(
      "count_not_equal",
      Kokkos::MDRangePolicy<typename View::execution_space, Kokkos::Rank<2>>({0, 0}, {v.extent(0), v.extent(1)}),
      KOKKOS_LAMBDA(int i, int j, int& sum) { sum += int(v(i, j)) != value ? 1 : 0; }, errors);
  return errors;
}

template <class View>
int count_not_equal_on_host(const View& v, int value) {
  int errors = 0;
  for (std::size_t i = 0; i < v.extent(0); ++i)
    for (std::size_t j = 0; j < v.extent(1); ++j) errors += int(v(i, j)) != value ? 1 : 0;
  return errors;
}

// n atomic increments of a rank-0 view, on ExecutionSpace.
template <class ExecutionSpace, class View>
void add_ones(const View& v, int n) {
  Kokkos::parallel_for(
      "add_ones", Kokkos::RangePolicy<ExecutionSpace>(0, n), KOKKOS_LAMBDA(int) { Kokkos::atomic_add(v.data(), 1); });
}

// An element type with no default constructor, as in Kokkos's realloc and resize tests.
struct NoDefaultConstructor {
  KOKKOS_FUNCTION NoDefaultConstructor(int value) : i(value) {}
  KOKKOS_FUNCTION operator int() const { return i; }
  int i;
};

TEST(KokkosDualView, dualview_alloc) {
  Matrix<int> b1;
  EXPECT_FALSE(b1.is_allocated());
  b1 = Matrix<int>("B1", 10, 3);
  Matrix<int> b2(b1);
  Matrix<int> b3("B3", 10, 3);
  EXPECT_TRUE(b1.is_allocated());
  EXPECT_TRUE(b2.is_allocated());
  EXPECT_TRUE(b3.is_allocated());
}

TEST(KokkosDualView, test_dualview_copy_construction_and_assignment) {
  constexpr unsigned m = 3;
  Matrix<int> a("A", 10, m);
  Matrix<int> b(a);
  lapis::DualView<const int* [m], Kokkos::LayoutLeft, Exec> c = a;
  EXPECT_EQ(a.view_host(), b.view_host());
  EXPECT_EQ(a.view_device(), b.view_device());
  EXPECT_EQ(a.view_host(), c.view_host());
  EXPECT_EQ(a.view_device(), c.view_device());
  // Kokkos checks the flags only where the sides are apart; lapis keeps them on every device.
  a.clear_sync_state();
  a.modify_host();
  EXPECT_TRUE(a.need_sync_device());
  EXPECT_TRUE(b.need_sync_device());
  EXPECT_TRUE(c.need_sync_device());
  a.clear_sync_state();
  EXPECT_FALSE(c.need_sync_device());
}

template <class T>
void combinations(bool initialize) {
  const int n = 10, m = 3;
  using DV = Matrix<T>;
  DV a = initialize ? DV("A", n, m) : DV(Kokkos::view_alloc(Kokkos::WithoutInitializing, "A"), n, m);
  Kokkos::deep_copy(a.view_device(), 1);
  a.template modify<typename DV::execution_space>();
  a.template sync<typename DV::host_mirror_space>();
  a.template sync<typename DV::host_mirror_space>(Exec());
  EXPECT_EQ(count_not_equal_on_host(a.view_host(), 1), 0);

  a.view_host()(5, 1) = 3;
  a.view_host()(6, 1) = 4;
  a.view_host()(7, 2) = 5;
  a.template modify<typename DV::host_mirror_space>();
  DV b = lapis::subview(a, std::pair<unsigned, unsigned>(6, 9), std::pair<unsigned, unsigned>(0, 1));
  a.template sync<typename DV::execution_space>();
  a.template sync<typename DV::execution_space>(Exec());
  EXPECT_EQ(count_not_equal(a.view_device(), 1), 3);  // the host's three changes reached the device

  b.template modify<typename DV::execution_space>();
  Kokkos::deep_copy(b.view_device(), 2);  // rows 6 to 8 of column 0
  a.template sync<typename DV::host_mirror_space>();
  T sum = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) sum += a.view_host()(i, j);
  EXPECT_EQ(sum, n * m + (3 - 1) + (4 - 1) + (5 - 1) + 3 * (2 - 1));
}

TEST(KokkosDualView, dualview_combination) { combinations<int>(true); }
TEST(KokkosDualView, dualview_combinations_without_init) { combinations<int>(false); }

template <class T>
void deep_copy_case(int n, int m, bool templated_sync) {
  using DV = Matrix<T>;
  DV a, b;
  if (n >= 0) {
    a = DV("A", n, m);
    b = DV(Kokkos::view_alloc(Kokkos::WithoutInitializing, "B"), n, m);
  }
  Kokkos::deep_copy(a.view_device(), 1);
  if (templated_sync) {
    a.template modify<typename DV::execution_space>();
    a.template sync<typename DV::host_mirror_space>();
  } else {
    a.modify_device();
    a.sync_host();
    a.sync_host(Exec());
  }
  lapis::deep_copy(b, a);  // a's host side is current: copied device side to device side
  if (templated_sync) b.template sync<typename DV::host_mirror_space>();
  else b.sync_host();
  EXPECT_EQ(count_not_equal_on_host(b.view_host(), 1), 0);
  EXPECT_EQ(b.is_allocated(), n >= 0);
}

TEST(KokkosDualView, dualview_deep_copy) {
  for (bool templated : {true, false}) {
    deep_copy_case<int>(10, 5, templated);
    deep_copy_case<double>(10, 5, templated);
    deep_copy_case<int>(0, 5, templated);   // zero length but allocated
    deep_copy_case<int>(-1, 5, templated);  // default constructed
  }
}

template <class T, bool Initialize>
void resize_case() {
  using DV = Matrix<T>;
  const unsigned n = 10, m = 5, factor = 2;
  DV a = Initialize ? DV("A", n, m) : DV(Kokkos::view_alloc(Kokkos::WithoutInitializing, "A"), n, m);
  Kokkos::deep_copy(a.view_device(), 1);

  a.modify_device();  // resize on the device
  if (Initialize) lapis::resize(a, factor * n, factor * m);
  else lapis::resize(Kokkos::WithoutInitializing, a, factor * n, factor * m);
  EXPECT_EQ(a.extent(0), n * factor);
  EXPECT_EQ(a.extent(1), m * factor);
  Kokkos::deep_copy(a.view_device(), 1);
  a.sync_host();  // the resized device side is the modified one
  EXPECT_EQ(count_not_equal(a.view_device(), 1), 0);
  EXPECT_EQ(count_not_equal_on_host(a.view_host(), 1), 0);

  a.modify_host();  // resize on the host
  if (Initialize) lapis::resize(a, n / factor, m / factor);
  else lapis::resize(Kokkos::WithoutInitializing, a, n / factor, m / factor);
  EXPECT_EQ(a.extent(0), n / factor);
  EXPECT_EQ(a.extent(1), m / factor);
  a.sync_device();
  a.sync_device(Exec());
  EXPECT_EQ(count_not_equal(a.view_device(), 1), 0);
  EXPECT_EQ(count_not_equal_on_host(a.view_host(), 1), 0);
}

template <class T, bool Initialize>
void realloc_case() {
  using DV = Matrix<T>;
  const unsigned n = 10, m = 5;
  DV a;
  if (Initialize) {
    a = DV("A", n, m);
    lapis::realloc(a, n, m);
  } else {
    a = DV(Kokkos::view_alloc(Kokkos::WithoutInitializing, "A"), n, m);
    lapis::realloc(Kokkos::WithoutInitializing, a, n, m);
  }
  EXPECT_EQ(a.extent(0), n);
  EXPECT_EQ(a.extent(1), m);
  Kokkos::deep_copy(a.view_device(), 1);
  a.modify_device();
  a.sync_host();
  EXPECT_EQ(count_not_equal(a.view_device(), 1), 0);
  EXPECT_EQ(count_not_equal_on_host(a.view_host(), 1), 0);
}

TEST(KokkosDualView, dualview_realloc) {
  realloc_case<int, true>();
  realloc_case<NoDefaultConstructor, false>();
}

TEST(KokkosDualView, dualview_resize) {
  resize_case<int, true>();
  resize_case<NoDefaultConstructor, false>();
}

TEST(KokkosDualView, dualview_sync_should_fence) {
  using DV = lapis::DualView<int, Exec>;
  {
    DV dv("test_dual_view");
    dv.modify_device();
    add_ones<Exec>(dv.view_device(), 10000);
    dv.sync_host();
    EXPECT_EQ(dv.view_host()(), 10000);
  }
  {
    DV dv("test_dual_view");
    dv.modify_device();
    add_ones<Exec>(dv.view_device(), 10000);
    dv.sync<DV::t_host::device_type>();
    EXPECT_EQ(dv.view_host()(), 10000);
  }
  for (bool templated : {false, true}) {
    DV dv("test_dual_view");
    dv.modify_host();
    add_ones<HostExec>(dv.view_host(), 10000);
    if (templated) dv.sync<DV::t_dev::device_type>();
    else dv.sync_device();
    int result = 0;
    Kokkos::deep_copy(result, dv.view_device());
    EXPECT_EQ(result, 10000);
  }
}

// Kokkos's UVM tests: template arguments name the intended side (here on the default memory space).
using DeviceType = Kokkos::Device<Exec, Exec::memory_space>;
using DualViewType = lapis::DualView<double*, Kokkos::LayoutLeft, DeviceType>;
using ConstDualViewType = lapis::DualView<const double*, Kokkos::LayoutLeft, DeviceType>;
using d_device = DeviceType;
using h_device = Kokkos::Device<HostExec, Kokkos::HostSpace>;

TEST(KokkosDualView, dualview_device_correct_kokkos_device) {
  DualViewType dv("myView", 100);
  dv.clear_sync_state();
  using device_of_view = decltype(dv.template view<d_device>())::device_type;
  EXPECT_STREQ(device_of_view::execution_space::name(), Exec::name());
}

TEST(KokkosDualView, dualview_host_correct_kokkos_device) {
  DualViewType dv("myView", 100);
  dv.clear_sync_state();
  using device_of_view = decltype(dv.template view<h_device>())::device_type;
  EXPECT_STREQ(device_of_view::execution_space::name(), HostExec::name());
}

template <class Space>
void modify_then_sync(bool device_first) {
  DualViewType dv("myView", 100);
  dv.clear_sync_state();
  if (device_first) dv.modify_device();
  else dv.modify_host();
  dv.template sync<Space>();
  EXPECT_FALSE(dv.need_sync_device());
  EXPECT_FALSE(dv.need_sync_host());
}

TEST(KokkosDualView, dualview_host_modify_template_device_sync) { modify_then_sync<d_device>(false); }
TEST(KokkosDualView, dualview_host_modify_template_device_execspace_sync) {
  modify_then_sync<d_device::execution_space>(false);
}
TEST(KokkosDualView, dualview_device_modify_template_host_sync) { modify_then_sync<h_device>(true); }
TEST(KokkosDualView, dualview_device_modify_template_host_execspace_sync) {
  modify_then_sync<h_device::execution_space>(true);
}

TEST(KokkosDualView, dualview_template_views_return_correct_executionspace_views) {
  DualViewType dv("myView", 100);
  dv.clear_sync_state();
  using host_view = decltype(dv.view<HostExec>());
  using device_view = decltype(dv.view<Exec>());
  EXPECT_STREQ(Exec::name(), device_view::device_type::execution_space::name());
  EXPECT_STREQ(HostExec::name(), host_view::device_type::execution_space::name());
}

TEST(KokkosDualView, dualview_template_views_return_correct_views_from_const_dual_view) {
  DualViewType dv("myView", 100);
  ConstDualViewType const_dv = dv;
  dv.clear_sync_state();
  EXPECT_EQ(dv.view<HostExec>(), const_dv.view<HostExec>());
  EXPECT_EQ(dv.view<Exec>(), const_dv.view<Exec>());
}

#if KOKKOS_VERSION >= 40500
// A user type holding a View, constructible on the host only (Kokkos's test has one).
template <class V>
class HoldsAView {
 public:
  template <class... Extents>
  HoldsAView(std::string label, Extents... extents) : v_(std::move(label), extents...) {}
  HoldsAView() : v_("v", 10) {}

 private:
  V v_;
};

template <class V, class Device>
auto view_of_views() {
  lapis::DualView<V*, Device> dv(Kokkos::view_alloc("myView", Kokkos::SequentialHostInit), 3u);
  V v("v", 2);
  V w("w", 2);
  dv.view_host()(0) = v;
  dv.view_host()(1) = w;
  dv.modify_host();
  dv.sync_device();
  return dv;
}

// Kokkos's test, then lapis's own checks: the elements keep their allocations through the resize
// (their reference counts exact: no leak, no double free), and the device side holds the host
// side's handles, as Kokkos's byte copy leaves them. On the default device and where the sides are
// apart (the simulated device).
template <class Device>
void sequential_host_init() {
  using V = Kokkos::View<double*, Exec>;
  auto dv_v = view_of_views<V, Device>();
  dv_v.resize(Kokkos::view_alloc(Kokkos::SequentialHostInit), 2u);
  EXPECT_EQ(dv_v.view_device().size(), 2u);
  EXPECT_EQ(dv_v.view_host().size(), 2u);
  EXPECT_EQ(dv_v.view_host()(0).label(), "v");
  EXPECT_EQ(dv_v.view_host()(1).label(), "w");
  EXPECT_EQ(dv_v.view_host()(0).use_count(), 1);  // the host side's element alone holds it
  EXPECT_FALSE(dv_v.need_sync_device());
  using DeviceMemory = typename decltype(dv_v)::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceMemory>::accessible) {
    EXPECT_EQ(dv_v.view_device()(1).data(), dv_v.view_host()(1).data());
  }
  V kept = dv_v.view_host()(1);
  EXPECT_EQ(kept.use_count(), 2);
  dv_v = {};  // the elements are destroyed on the host, once
  EXPECT_EQ(kept.use_count(), 1);

  view_of_views<HoldsAView<V>, Device>();

  lapis::DualView<double*, Device> dv(Kokkos::view_alloc("myView", Kokkos::SequentialHostInit), 1u);
  dv.resize(Kokkos::view_alloc(Kokkos::SequentialHostInit), 2u);
  EXPECT_EQ(dv.view_device().size(), 2u);
  EXPECT_EQ(dv.view_host().size(), 2u);
  dv.realloc(Kokkos::view_alloc(Kokkos::SequentialHostInit), 3u);
  EXPECT_EQ(dv.view_device().size(), 3u);
  EXPECT_EQ(dv.view_host().size(), 3u);
  EXPECT_EQ(dv.label(), "myView");
}

TEST(KokkosDualView, dualview_sequential_host_init) { sequential_host_init<Exec>(); }
TEST(KokkosDualView, dualview_sequential_host_init_sides_apart) { sequential_host_init<lapis::SimulatedDevice>(); }

// A resize keeps the elements' values, synced to the device side as Kokkos syncs them (bytes).
TEST(KokkosDualView, SequentialHostInitResizeKeepsTheHostSidesElements) {
  using V = Kokkos::View<double*, Kokkos::HostSpace>;
  lapis::DualView<V*, lapis::SimulatedDevice> dv(Kokkos::view_alloc("grow", Kokkos::SequentialHostInit), 2u);
  V a("a", 3);
  dv.view_host()(1) = a;
  dv.modify_host();
  dv.resize(Kokkos::view_alloc(Kokkos::SequentialHostInit), 4u);
  EXPECT_EQ(dv.view_host()(1).data(), a.data());
  EXPECT_EQ(dv.view_device()(1).data(), a.data());  // (the simulated device side is host memory)
  EXPECT_EQ(dv.view_host()(3).data(), nullptr);     // new elements default-constructed
  EXPECT_EQ(a.use_count(), 2);
}
#endif

TEST(KokkosDualView, dualview_default_constructed) {
  DualViewType dv;
  dv.modify<DualViewType::t_dev>();
  EXPECT_FALSE(dv.need_sync_host());
  EXPECT_FALSE(dv.need_sync_device());
  dv.sync<DualViewType::t_dev>();
  dv.modify_host();
  EXPECT_FALSE(dv.need_sync_host());
  EXPECT_FALSE(dv.need_sync_device());
  dv.sync_host();
  dv.modify_device();
  EXPECT_FALSE(dv.need_sync_host());
  EXPECT_FALSE(dv.need_sync_device());
  dv.sync_device();
  EXPECT_EQ(dv.view_host().data(), nullptr);
  EXPECT_EQ(dv.extent(0), 0u);
  EXPECT_EQ(dv.label(), "");
}

// Kokkos's death test: a DualView of one memory made from two different views. lapis throws.
template <class DV>
void construct_from_views() {
  if constexpr (std::is_same_v<typename DV::t_dev, typename DV::t_host>) {
    typename DV::t_dev view1("view1", 10), view2("view2", 10);
    DV shared(view1, view1);
    EXPECT_EQ(shared.view_device().data(), view1.data());
    EXPECT_THROW(DV(view1, view2), std::invalid_argument);
  }
}

TEST(KokkosDualView, dualview_external_view_construction) {
  using DV = lapis::DualView<int*, Exec>;
  if (!lapis::sides_alias<lapis::DefaultDevice>() || !std::is_same_v<DV::t_dev, DV::t_host>)
    GTEST_SKIP() << "only where the DualView keeps one memory";
  construct_from_views<DV>();
}

// --- lapis's stronger rules and the rest of the Kokkos-compatible surface ---

TEST(LapisDualView, PropertiesComeInAnyOrder) {
  using A = lapis::DualView<double**, lapis::alloc::DeviceFirst, Kokkos::LayoutLeft, lapis::sync::Manual, Exec>;
  static_assert(std::is_same_v<A::array_layout, Kokkos::LayoutLeft>);
  static_assert(std::is_same_v<A::sync_policy, lapis::sync::Manual>);
  static_assert(std::is_same_v<A::alloc_policy, lapis::alloc::DeviceFirst>);
  static_assert(std::is_same_v<A::execution_space, Exec>);
  static_assert(std::is_same_v<A::memory_space, Exec::memory_space>);
  using B = lapis::DualView<int*, Exec::memory_space>;  // a memory space names a device too
  static_assert(std::is_same_v<B::memory_space, Exec::memory_space>);
  static_assert(std::is_same_v<B::array_layout, Kokkos::LayoutRight>);  // lapis's default layout
  static_assert(std::is_same_v<B::sync_policy, lapis::sync::Lazy>);
  static_assert(std::is_same_v<B::value_type, int>);
  static_assert(std::is_same_v<lapis::DualView<const int*>::value_type, const int>);
  static_assert(std::is_same_v<B::t_dev::memory_space, B::memory_space>);
  static_assert(std::is_same_v<B::t_host::memory_space, Kokkos::HostSpace>);
  static_assert(B::t_dev_um::memory_traits::is_unmanaged);
  static_assert(std::is_same_v<B::t_host_const::value_type, const int>);
}

TEST(LapisDualView, StaticExtentsRankZeroAndSizes) {
  lapis::DualView<double* [3]> a("a", 4);
  EXPECT_EQ(a.extent(0), 4u);
  EXPECT_EQ(a.extent(1), 3u);
  EXPECT_EQ(a.extent(2), 1u);  // beyond the rank, as for Kokkos::View
  EXPECT_EQ(a.extent_int(1), 3);
  EXPECT_EQ(a.size(), 12u);
  EXPECT_EQ(a.span(), 12u);
  EXPECT_TRUE(a.span_is_contiguous());
  std::size_t strides[3] = {};
  a.stride(strides);
  EXPECT_EQ(strides[0], 3u);
  EXPECT_EQ(strides[1], 1u);
  EXPECT_EQ(strides[2], 12u);
  EXPECT_EQ((lapis::DualView<double* [3]>("b", 4, 3).extent(1)), 3u);  // all extents, the static one matching
  EXPECT_THROW((lapis::DualView<double* [3]>("b", 4, 2)), std::invalid_argument);
  lapis::DualView<double**> dynamic("d", 4, 2);
  EXPECT_THROW((lapis::DualView<double* [3]>(dynamic)), std::invalid_argument);

  lapis::DualView<double> scalar("s");
  EXPECT_EQ(scalar.size(), 1u);
  scalar.view_host()() = 2.5;
  scalar.modify_host();
  scalar.sync_device();
  double value = 0;
  Kokkos::deep_copy(value, scalar.view_device());
  EXPECT_EQ(value, 2.5);
}

TEST(LapisDualView, ViewsKeepTheDataAliveAfterTheLastHandle) {
  const auto live = lapis::live_allocations();
  Matrix<double>::t_host host;
  Matrix<double>::t_dev device;
  {
    Matrix<double> dv("short-lived", 2, 2);
    dv.view_host()(1, 1) = 6.0;
    dv.modify_host();
    dv.sync_device();
    host = dv.view_host();
    device = dv.view_device();
  }
  EXPECT_GT(lapis::live_allocations(), live);  // the views hold the buffer
  EXPECT_EQ(host(1, 1), 6.0);
  EXPECT_EQ(count_not_equal(device, 0), 1);
  EXPECT_EQ(host.label(), "short-lived");
  host = {};
  device = {};
  EXPECT_EQ(lapis::live_allocations(), live);
}

TEST(LapisDualView, ResizeAndReallocLeaveOtherHandlesOnTheOldData) {
  Matrix<int> a("a", 2, 2);
  Kokkos::deep_copy(a.view_host(), 4);
  a.modify_host();
  Matrix<int> b = a;
  lapis::resize(a, 3, 3);
  EXPECT_EQ(b.extent(0), 2u);
  EXPECT_EQ(b.view_host()(1, 1), 4);
  EXPECT_TRUE(a.need_sync_device());  // the host side held the latest data and is marked modified
  EXPECT_EQ(a.view_host()(1, 1), 4);
  EXPECT_EQ(a.view_host()(2, 2), 0);  // new elements are zeros
  EXPECT_EQ(a.label(), "a");
  lapis::realloc(Kokkos::view_alloc("renamed"), a, 1, 1);
  EXPECT_EQ(a.label(), "renamed");
  EXPECT_FALSE(a.need_sync_device());           // a fresh allocation with clear flags
  a.resize(Kokkos::WithoutInitializing, 2, 1);  // the members take one property too, as Kokkos's do
  a.realloc(Kokkos::WithoutInitializing, 4, 2);
  EXPECT_EQ(a.extent(0), 4u);
  EXPECT_EQ(a.label(), "renamed");
}

TEST(LapisDualView, DeepCopyOverwritesTheDestinationsPendingChanges) {
  Matrix<int> src("src", 2, 2), dst("dst", 2, 2);
  Kokkos::deep_copy(src.view_host(), 5);
  src.modify_host();
  dst.modify_device();  // pending device changes, wholly overwritten below
  lapis::deep_copy(Exec(), dst, src);
  Exec().fence();
  EXPECT_TRUE(dst.need_sync_device());  // src's data was on the host, so dst's host side holds it
  dst.sync_device();
  EXPECT_EQ(count_not_equal(dst.view_device(), 5), 0);
}

TEST(LapisDualView, ModifyingBothSidesThrowsOnEveryDevice) {
  Matrix<int> dv("both", 2, 2);
  dv.modify_host();
  EXPECT_THROW(dv.modify_device(), lapis::ConcurrentModificationError);  // Kokkos aborts where sides are apart
}

TEST(LapisDualView, ASpaceNamingBothSidesOfTheSimulatedDeviceCannotMark) {
  lapis::DualView<double*, lapis::SimulatedDevice> dv("simulated", 3);
  EXPECT_THROW(dv.modify<HostExec>(), std::logic_error);
  static_assert(decltype(dv)::get_device_side<lapis::SimulatedDevice>() == 1);
  static_assert(decltype(dv)::get_device_side<HostExec>() == -1);  // both: the simulated device's spaces are the host's
  dv.modify<lapis::SimulatedDevice>();                             // the device argument itself names the device side
  EXPECT_TRUE(dv.need_sync_host());
  EXPECT_EQ(dv.view<lapis::SimulatedDevice>().data(), dv.view_device().data());
  EXPECT_NE(dv.view<HostExec>().data(), dv.view_device().data());
}

TEST(LapisDualView, TwoViewsBecomeTheSidesAndStayAlive) {
  using DV = lapis::DualView<double*, lapis::SimulatedDevice>;  // sides apart: two memories
  DV::t_dev device("device", 4);
  DV::t_host host("host", 4);
  DV dv(device, host);
  EXPECT_EQ(dv.label(), "device");
  EXPECT_FALSE(dv.need_sync_device());
  EXPECT_FALSE(dv.need_sync_host());
  dv.view_host()(3) = 8.0;
  dv.modify_host();
  dv.sync_device();
  EXPECT_EQ(device(3), 8.0);  // the simulated device side is the given device view
  EXPECT_EQ(dv.transfers(), (lapis::TransferStats{1, 32, 0, 0}));
  const auto* data = device.data();
  device = {};  // the DualView holds the views
  EXPECT_EQ(dv.view_device().data(), data);
  EXPECT_THROW(DV(DV::t_dev("d", 4), DV::t_host("h", 5)), std::invalid_argument);
}

TEST(LapisDualView, KokkosDualViewsConvertBothWaysSharingTheViews) {
  using DV = lapis::DualView<double*, Kokkos::LayoutRight, Exec>;
  Kokkos::DualView<double*, Kokkos::LayoutRight, Exec> kokkos("kokkos", 5);
  kokkos.view_host()(4) = 3.0;
  kokkos.modify_host();
  DV dv = lapis::from_kokkos<DV>(kokkos);
  EXPECT_EQ(dv.view_host().data(), kokkos.view_host().data());
  EXPECT_EQ(dv.view_device().data(), kokkos.view_device().data());
  EXPECT_EQ(dv.need_sync_device(), kokkos.need_sync_device());  // the pending mark came along (Kokkos keeps
                                                                // none where the device is the host)
  dv.sync_device();

  auto back = lapis::to_kokkos(dv);
  EXPECT_EQ(back.view_host().data(), dv.view_host().data());
  EXPECT_EQ(back.view_device().data(), dv.view_device().data());
  auto on_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.view_device());
  EXPECT_EQ(on_host(4), 3.0);
}

// --- subviews: they share the whole allocation's state ---

using Simulated = lapis::DualView<int*, lapis::SimulatedDevice>;  // sides apart: real copies on every build

// kokkos#2514: syncing one subview copied only its own region and cleared the shared mark, losing a
// sibling's pending change. A lapis subview syncs the whole allocation.
TEST(LapisDualView, SyncingOneSubviewKeepsASiblingsPendingChange) {
  Simulated whole("whole", 10);
  auto left = lapis::subview(whole, std::make_pair(0, 5));
  auto right = lapis::subview(whole, std::make_pair(5, 10));
  left.view_host()(0) = 1;
  left.modify_host();
  right.view_host()(4) = 2;  // element 9 of the whole array
  right.modify_host();
  left.sync_device();
  EXPECT_FALSE(right.need_sync_device());
  EXPECT_EQ(right.view_device()(4), 2);  // the simulated device side is host memory
  EXPECT_EQ(whole.view_device()(0), 1);
  EXPECT_EQ(whole.transfers(), (lapis::TransferStats{1, 40, 0, 0}));  // one whole-allocation copy
  right.sync_device();
  EXPECT_EQ(whole.transfers().h2d_count, 1u);  // nothing left to copy
}

TEST(LapisDualView, SubviewsWrittenOnDifferentSidesWithoutASyncThrow) {
  Simulated whole("whole", 10);
  auto left = lapis::subview(whole, std::make_pair(0, 5));
  auto right = lapis::subview(whole, std::make_pair(5, 10));
  left.modify_host();
  EXPECT_THROW(right.modify_device(), lapis::ConcurrentModificationError);
}

TEST(LapisDualView, SubviewsAreKokkosSubviewsOfTheWholeArray) {
  Matrix<double> a("a", 6, 4);  // LayoutLeft
  auto rows = lapis::subview(a, std::make_pair(1, 4), Kokkos::ALL);
  static_assert(std::is_same_v<decltype(rows)::array_layout, Kokkos::LayoutLeft>);  // Kokkos keeps it here
  EXPECT_EQ(rows.extent(0), 3u);
  EXPECT_EQ(rows.extent(1), 4u);
  EXPECT_EQ(rows.size(), 12u);
  EXPECT_EQ(rows.span(), 2u + 3 * 6 + 1);
  EXPECT_FALSE(rows.span_is_contiguous());
  EXPECT_EQ(rows.view_host().data(), &a.view_host()(1, 0));
  EXPECT_EQ(rows.view_device().data(), a.view_device().data() + 1);
  EXPECT_EQ(rows.label(), "a");

  auto column = lapis::subview(a, Kokkos::ALL, 2);  // an index drops its dimension
  static_assert(decltype(column)::rank == 1);
  EXPECT_EQ(column.extent(0), 6u);
  EXPECT_EQ(column.view_host().data(), &a.view_host()(0, 2));
  auto row = lapis::subview(a, 3, Kokkos::ALL);
  static_assert(std::is_same_v<decltype(row)::array_layout, Kokkos::LayoutStride>);
  std::size_t strides[2] = {};
  row.stride(strides);
  EXPECT_EQ(strides[0], 6u);
  EXPECT_EQ(strides[1], 3u * 6 + 1);  // the span

  auto element = lapis::subview(rows, 2, 3);  // a subview of a subview: a(3, 3)
  static_assert(decltype(element)::rank == 0);
  element.view_host()() = 7.5;
  element.modify_host();
  EXPECT_TRUE(a.need_sync_device());
  EXPECT_EQ(a.view_host()(3, 3), 7.5);

  lapis::DualView<const double**, Kokkos::LayoutLeft, Exec> readonly = rows;  // const, sharing the state
  EXPECT_EQ(readonly.view_host().data(), rows.view_host().data());
  EXPECT_TRUE(readonly.need_sync_device());
}

TEST(LapisDualView, SubviewArgumentsOutsideTheExtentsThrow) {
  Matrix<int> a("a", 4, 3);
  EXPECT_THROW(lapis::subview(a, 4, Kokkos::ALL), std::out_of_range);
  EXPECT_THROW(lapis::subview(a, -1, Kokkos::ALL), std::out_of_range);
  EXPECT_THROW(lapis::subview(a, std::make_pair(2, 5), 0), std::out_of_range);
  EXPECT_THROW(lapis::subview(a, std::make_pair(3, 2), 0), std::out_of_range);
  EXPECT_EQ(lapis::subview(a, std::make_pair(4, 4), 0).extent(0), 0u);  // an empty range at the end
}

TEST(LapisDualView, MakingAndMeasuringASubviewAllocatesNothing) {
  lapis::DualView<int**, lapis::alloc::DeviceFirst, lapis::SimulatedDevice> a("device first", 4, 3);
  auto part = lapis::subview(a, std::make_pair(1, 3), Kokkos::ALL);
  EXPECT_EQ(part.extent(0), 2u);
  EXPECT_EQ(part.span(), 6u);
  EXPECT_FALSE(a.host_allocated());
  part.view_host();
  EXPECT_TRUE(a.host_allocated());
}

// Overwriting a subview overwrites only part of the allocation: the rest of the side is synced
// first, not discarded.
TEST(LapisDualView, OverwritingASubviewSyncsTheRestFirst) {
  Simulated whole("whole", 10);
  whole.view_host()(9) = 4;
  whole.modify_host();
  auto left = lapis::subview(whole, std::make_pair(0, 5));
  auto device = left.view_device_for_overwrite();
  device(0) = 3;
  EXPECT_TRUE(whole.need_sync_host());
  whole.sync_host();
  EXPECT_EQ(whole.view_host()(9), 4);
  EXPECT_EQ(whole.view_host()(0), 3);
  EXPECT_EQ(whole.transfers(), (lapis::TransferStats{1, 40, 1, 40}));
}

TEST(LapisDualView, ResizingASubviewMakesItAWholeArray) {
  Simulated whole("whole", 10);
  whole.view_host()(6) = 5;
  whole.modify_host();
  auto right = lapis::subview(whole, std::make_pair(5, 10));
  lapis::resize(right, 2);
  EXPECT_EQ(right.view_host()(1), 5);  // the overlap came along
  EXPECT_NE(right.buffer(), whole.buffer());
  EXPECT_EQ(right.span(), 2u);
  right.modify_host();  // its own state now
  EXPECT_NO_THROW(whole.sync_device());
  EXPECT_NO_THROW(whole.modify_device());
}

// Kokkos Tools hear of every sync and modify, with the DualView's label and the side.
struct ToolEvent {
  std::string kind, label;
  bool device;
  bool operator==(const ToolEvent& other) const {
    return kind == other.kind && label == other.label && device == other.device;
  }
};
std::vector<ToolEvent> tool_events;

TEST(LapisDualView, KokkosToolsHearSyncsAndModifies) {
  namespace tools = Kokkos::Tools::Experimental;
  tools::set_dual_view_sync_callback(
      [](const char* label, const void*, bool to_device) { tool_events.push_back({"sync", label, to_device}); });
  tools::set_dual_view_modify_callback(
      [](const char* label, const void*, bool on_device) { tool_events.push_back({"modify", label, on_device}); });
  if (!Kokkos::Tools::profileLibraryLoaded()) {
    tools::set_dual_view_sync_callback(nullptr);
    tools::set_dual_view_modify_callback(nullptr);
    GTEST_SKIP() << "this Kokkos reports events only to a loaded tool library";
  }
  {
    Matrix<int> dv("watched", 2, 2);
    dv.modify_host();
    dv.sync_device();
    dv.sync_device();  // current: no event, as no sync happens
    dv.modify_device();
    dv.sync_host();
  }
  tools::set_dual_view_sync_callback(nullptr);
  tools::set_dual_view_modify_callback(nullptr);
  const std::vector<ToolEvent> expected = {
      {"modify", "watched", false}, {"sync", "watched", true}, {"modify", "watched", true}, {"sync", "watched", false}};
  EXPECT_EQ(tool_events, expected);
}

}  // namespace
