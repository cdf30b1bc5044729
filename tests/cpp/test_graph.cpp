// lapis::Graph (runtime/graph.hpp) from C++: calls added as callables and replayed in order, on both
// devices, and what a thread that records refuses.
#include <gtest/gtest.h>

#include <string>

#include "lapis/kernels.hpp"
#include "lapis/runtime/graph.hpp"
#include "support.hpp"

namespace {

using lapis::test::apart;

template <class Device>
class GraphTest : public ::testing::Test {};
TYPED_TEST_SUITE(GraphTest, lapis::test::Devices);

template <class Device>
using Vector = lapis::DualView<double*, Kokkos::LayoutRight, Device>;

template <class DV>
void set_host(DV& dv, double value) {
  auto h = dv.view_host();
  for (std::size_t i = 0; i < h.extent(0); ++i) h(i) = value + double(i);
  dv.modify_host();
}

TYPED_TEST(GraphTest, ReplaysRunTheAddedCallsInOrderAndMoveNothing) {
  Vector<TypeParam> x("x", 4), y("y", 4);
  set_host(x, 0);  // 0 1 2 3
  set_host(y, 1);  // 1 2 3 4
  x.sync_device();
  y.sync_device();
  lapis::Graph graph;
  graph.add("x += y", [=]() mutable { lapis::kernels::add(x, y, x); });
  graph.add("y *= 2", [=]() mutable { lapis::kernels::multiply(y, 2.0, y); });
  EXPECT_EQ(graph.size(), 2u);
  EXPECT_EQ(graph.names()[1], "y *= 2");
  const lapis::TransferStats x_before = x.transfers(), y_before = y.transfers();
  for (int i = 0; i < 3; ++i) graph.replay();
  EXPECT_EQ(x.transfers(), x_before);
  EXPECT_EQ(y.transfers(), y_before);
  x.sync_host();
  // y doubles after each x += y: x = x0 + y0 (1 + 2 + 4)
  for (int i = 0; i < 4; ++i) EXPECT_EQ(x.view_host()(i), double(i) + 7 * (1 + i));
}

TYPED_TEST(GraphTest, ARecordingThreadRefusesWhatAGraphCannotReplay) {
  Vector<TypeParam> x("x", 4);
  set_host(x, 0);
  x.sync_device();
  lapis::Graph graph;
  {
    const lapis::GraphRecording recording(graph);
    EXPECT_EQ(lapis::recording_graph(), &graph);
    EXPECT_THROW(lapis::kernels::add(x, 1.0, x), lapis::GraphCaptureError);    // a kernel called directly
    EXPECT_THROW(x.view_host(lapis::Access::read), lapis::GraphCaptureError);  // the host side
    EXPECT_THROW(lapis::GraphRecording again(graph), lapis::GraphCaptureError);
    EXPECT_THROW(graph.replay(), lapis::GraphCaptureError);
  }
  EXPECT_EQ(lapis::recording_graph(), nullptr);
  lapis::kernels::add(x, 1.0, x);  // runs again once the recording ends
  x.sync_host();
  EXPECT_EQ(x.view_host()(3), 4.0);
  EXPECT_EQ(x.transfers().h2d_count, apart<TypeParam> ? 1u : 0u);
}

TYPED_TEST(GraphTest, ACopyBetweenTheSidesIsRefusedWhileRecording) {
  Vector<TypeParam> x("x", 4);
  set_host(x, 0);  // the host side is newer: a device read would copy
  lapis::Graph graph;
  const lapis::GraphRecording recording(graph);
  if (apart<TypeParam>) EXPECT_THROW(x.sync_device(), lapis::GraphCaptureError);
  else EXPECT_NO_THROW(x.sync_device());  // one memory: nothing to copy
}

}  // namespace
