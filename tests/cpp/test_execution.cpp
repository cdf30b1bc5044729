// The execution machinery where a GPU build takes paths a CPU build does not (multi_index_loop.hpp,
// reduction.hpp, fast_division.hpp, element_pairs.hpp under include/lapis/execution): the work items are run here on
// the host, item by item, and checked for visiting every element once with the right indices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "lapis/execution/element_pairs.hpp"
#include "lapis/execution/multi_index_loop.hpp"
#include "lapis/execution/reduction.hpp"

namespace {

using lapis::kernels::detail::FastDivision;

void expect_divides_as_hardware(std::uint32_t d, std::uint32_t n) {
  const FastDivision by(d);
  std::uint32_t remainder = 0;
  ASSERT_EQ(by.divide(n, remainder), n / d) << n << " / " << d;
  ASSERT_EQ(remainder, n % d) << n << " % " << d;
}

TEST(FastDivision, AgreesWithDivisionForEveryDivisorUpTo4096AndTheEdgesOfTheRange) {
  const std::uint32_t top = std::numeric_limits<std::uint32_t>::max();
  for (std::uint32_t d = 1; d <= 4096; ++d) {
    for (std::uint32_t n = 0; n < 3 * d + 5; ++n) expect_divides_as_hardware(d, n);
    for (std::uint32_t n : {top, top - 1, top - d, top / d * d, top / d * d - 1, (top / d - 1) * d + d - 1})
      expect_divides_as_hardware(d, n);
  }
}

TEST(FastDivision, AgreesWithDivisionOnRandomLargeOperands) {
  std::mt19937 random(2026);
  std::uniform_int_distribution<std::uint32_t> any(1, std::numeric_limits<std::uint32_t>::max());
  for (int trial = 0; trial < 200000; ++trial) expect_divides_as_hardware(any(random), any(random) - 1);
  for (std::uint32_t d : {std::numeric_limits<std::uint32_t>::max(), 1u << 31, (1u << 31) + 1, (1u << 31) - 1})
    for (std::uint32_t n : {0u, 1u, d - 1, d, std::numeric_limits<std::uint32_t>::max()})
      expect_divides_as_hardware(d, n);
}

// Records the indices of each call. (The work items are host-and-device functions; these run on
// the host only.)
struct Recorder {
  std::vector<std::vector<std::int64_t>>* calls;
  template <class... I>
  KOKKOS_INLINE_FUNCTION void operator()([[maybe_unused]] I... i) const {
#ifndef __CUDA_ARCH__
    calls->push_back({std::int64_t(i)...});
#endif
  }
};

// Every index of the box, in C order.
std::vector<std::vector<std::int64_t>> c_order(const std::vector<std::int64_t>& extents) {
  std::vector<std::vector<std::int64_t>> all{{}};
  for (std::int64_t extent : extents) {
    std::vector<std::vector<std::int64_t>> longer;
    for (const auto& prefix : all)
      for (std::int64_t i = 0; i < extent; ++i) {
        longer.push_back(prefix);
        longer.back().push_back(i);
      }
    all = longer;
  }
  return all;
}

// Runs every work item of RowLanes over the box (rank 2 to 4) and checks that each index comes
// once, that a thread takes its block of runs in order, the threads sharing a run taking its
// elements in turn (lane, lane + lanes, ...), and that the blocks come in C order. A small
// `threads_kept` makes the threads take several runs each.
template <std::size_t Rank>
void expect_row_lanes_visit_every_index_once(const lapis::kernels::detail::BoxExtents& extents, bool narrow,
                                             std::int64_t threads_kept) {
  std::vector<std::vector<std::int64_t>> calls;
  auto item = lapis::kernels::detail::row_lanes<Rank>(Recorder{&calls}, extents,
                                                      lapis::kernels::detail::device_threads_wanted, threads_kept);
  if (!narrow) item.narrow = false;
  const std::int64_t length = extents[Rank - 1], lanes = std::int64_t(1) << item.lane_bits;
  const std::int64_t k = item.runs_per_item, blocked = extents[Rank - 2];
  std::vector<std::vector<std::int64_t>> expected_order;
  const auto all = c_order(std::vector<std::int64_t>(extents, extents + Rank));
  const std::int64_t outer_runs = std::int64_t(all.size()) / (length * blocked);
  std::int64_t next_item = 0;
  for (std::int64_t outer = 0; outer < outer_runs; ++outer)
    for (std::int64_t block = 0; block * k < blocked; ++block)
      for (std::int64_t lane = 0; lane < lanes; ++lane) {
        for (std::int64_t run = block * k; run < std::min(block * k + k, blocked); ++run)
          for (std::int64_t last = lane; last < length; last += lanes)
            expected_order.push_back(all[(outer * blocked + run) * length + last]);
        item(next_item++);
      }
  EXPECT_EQ(next_item, item.items());
  EXPECT_EQ(calls, expected_order);
  std::sort(calls.begin(), calls.end());
  EXPECT_EQ(calls, all);
}

TEST(RowLanes, VisitEveryIndexOnceABlockOfRunsPerThreadWithAndWithoutFastDivisions) {
  for (bool narrow : {true, false})
    for (std::int64_t threads_kept : {std::int64_t(1) << 19, std::int64_t(8)}) {
      expect_row_lanes_visit_every_index_once<2>({3, 5}, narrow, threads_kept);
      expect_row_lanes_visit_every_index_once<2>({2, 70}, narrow, threads_kept);
      expect_row_lanes_visit_every_index_once<3>({2, 1, 7}, narrow, threads_kept);
      expect_row_lanes_visit_every_index_once<3>({2, 3, 1}, narrow, threads_kept);
      expect_row_lanes_visit_every_index_once<4>({3, 4, 5, 6}, narrow, threads_kept);
      expect_row_lanes_visit_every_index_once<4>({1, 9, 1, 33}, narrow, threads_kept);
      expect_row_lanes_visit_every_index_once<4>({2, 3, 19, 3}, narrow, threads_kept);
    }
}

TEST(RowLanes, AWarpPerRunWhereRunsAreManyMoreLanesWhereTheyAreFew) {
  using lapis::kernels::detail::device_threads_wanted;
  using lapis::kernels::detail::lane_bits_for;
  EXPECT_EQ(lane_bits_for(1, 1000), 0);
  EXPECT_EQ(lane_bits_for(7, 1000), 3);
  EXPECT_EQ(lane_bits_for(56, device_threads_wanted), 5);  // a warp, each thread 1 or 2 elements
  EXPECT_EQ(lane_bits_for(100000, device_threads_wanted), 5);
  EXPECT_EQ(lane_bits_for(512, 8), 9);  // a thread per element: 4,096 threads
  EXPECT_EQ(lane_bits_for(1 << 20, 1), 17);
  EXPECT_EQ(lane_bits_for(1 << 20, device_threads_wanted / 64), 6);
}

TEST(RowLanes, SeveralRunsPerThreadWhileTheLoopKeepsItsThreads) {
  using lapis::kernels::detail::row_lanes;
  const auto body = [](std::int64_t, std::int64_t, std::int64_t, std::int64_t) {};
  const auto im2col = row_lanes<4>(body, {576, 8, 56, 56});  // ResNet-18 layer1's, batch 8
  EXPECT_EQ(im2col.lane_bits, 5);
  EXPECT_EQ(im2col.runs_per_item, 8);
  EXPECT_EQ(im2col.items(), 576 * 8 * 7 * 32);
  const auto last_layer = row_lanes<4>(body, {4608, 8, 7, 7});  // layer4's: runs of 7, blocks of 2
  EXPECT_EQ(last_layer.lane_bits, 3);
  EXPECT_EQ(last_layer.runs_per_item, 2);  // 1,032,192 threads; in blocks of 4, 516,096
  EXPECT_EQ(last_layer.items(), 4608 * 8 * 4 * 8);
  const auto placed = row_lanes<4>(body, {8, 64, 112, 112});  // conv1's product put in place
  EXPECT_EQ(placed.runs_per_item, 2);                         // 917,504 threads; in blocks of 4, 458,752
  const auto pooled = row_lanes<2>([](std::int64_t, std::int64_t) {}, {8, 512});  // a global pooling's
  EXPECT_EQ(pooled.lane_bits, 9);
  EXPECT_EQ(pooled.runs_per_item, 1);
}

// sum over i of (i + 1), recorded per index
struct CountingTerm {
  std::vector<int>* visits;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& sum) const {
#ifndef __CUDA_ARCH__
    ++(*visits)[i];
#endif
    sum += double(i + 1);
  }
};

// The same sum as a LoadsThen, recording the order of its loads and finishes.
struct Event {
  char what;  // 'l'oad or 'f'inish
  std::int64_t index;
  bool operator==(const Event& other) const { return what == other.what && index == other.index; }
};
struct RecordingLoad {
  std::vector<Event>* events;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const {
#ifndef __CUDA_ARCH__
    events->push_back({'l', i});
#endif
    return double(i + 1);
  }
};
struct RecordingFinish {
  std::vector<Event>* events;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double loaded, double& sum) const {
#ifndef __CUDA_ARCH__
    events->push_back({'f', i});
#endif
    sum += loaded;
  }
};

const std::int64_t lane_counts[] = {0, 1, 7, 8, 9, 31, 32, 255, 256, 257, 1000, 4099};

TEST(WarpLanes, SumsEveryIndexOnce) {
  using lapis::kernels::detail::WarpLanes;
  for (std::int64_t count : lane_counts) {
    std::vector<int> visits(count, 0);
    const WarpLanes<double, CountingTerm> lanes{CountingTerm{&visits}, count};
    double sum = 0;
    for (std::int64_t item = 0; item < lanes.items(count); ++item) lanes(item, sum);
    EXPECT_EQ(sum, double(count) * double(count + 1) / 2) << count;
    EXPECT_EQ(std::vector<int>(count, 1), visits) << count;
  }
}

TEST(WarpLanes, GivesThreadTOfAWarpIndicesTPlusMultiplesOf32InTheWarpsBlock) {
  using lapis::kernels::detail::device_reduction_lanes;
  using lapis::kernels::detail::warp_width;
  const std::int64_t block = warp_width * device_reduction_lanes;
  std::vector<int> visits(3 * block, 0);
  const lapis::kernels::detail::WarpLanes<double, CountingTerm> lanes{CountingTerm{&visits},
                                                                      std::int64_t(visits.size())};
  for (std::int64_t thread = 0; thread < warp_width; ++thread) {
    double sum = 0;
    lanes(warp_width + thread, sum);  // the second warp's thread
    std::vector<int> expected(visits.size(), 0);
    for (std::int64_t t = 0; t <= thread; ++t)
      for (std::int64_t j = 0; j < device_reduction_lanes; ++j) expected[block + t + j * warp_width] = 1;
    EXPECT_EQ(visits, expected) << thread;
  }
}

TEST(LoadsThen, LoadsEveryLaneBeforeTheFirstFinishAndSumsLikeThePlainBody) {
  using namespace lapis::kernels::detail;
  for (std::int64_t count : lane_counts) {
    std::vector<Event> events;
    const auto body = loads_then(RecordingLoad{&events}, RecordingFinish{&events});
    const WarpLanes<double, decltype(body)> device_lanes{body, count};
    double device_sum = 0;
    for (std::int64_t item = 0; item < device_lanes.items(count); ++item) {
      events.clear();
      device_lanes(item, device_sum);
      const bool full = events.size() == 2 * std::size_t(device_reduction_lanes);
      for (std::size_t k = 0; k < events.size(); ++k)
        EXPECT_EQ(events[k].what, full ? (k < events.size() / 2 ? 'l' : 'f') : (k % 2 ? 'f' : 'l')) << count;
    }
    const LaneBlocks<double, decltype(body)> host_blocks{body, count};
    double host_sum = 0;
    for (std::int64_t block = 0; block * host_reduction_lanes < count; ++block) host_blocks(block, host_sum);
    EXPECT_EQ(device_sum, double(count) * double(count + 1) / 2) << count;
    EXPECT_EQ(host_sum, device_sum) << count;
  }
}

// An element's visits: each visit reads the count (x) and writes it plus one (out).
struct Visits {
  std::vector<int>& visits;
  int& operator()(std::int64_t i) const { return visits.at(static_cast<std::size_t>(i)); }
};
struct One {
  int operator()(std::int64_t) const { return 1; }
};

TEST(ElementPairs, VisitEveryElementOnceTwoPerIndexAPairDistanceApart) {
  using lapis::kernels::detail::pair_distance;
  for (std::int64_t count :
       {std::int64_t{0}, std::int64_t{1}, pair_distance - 1, pair_distance, pair_distance + 1, 2 * pair_distance - 1,
        2 * pair_distance, 2 * pair_distance + 1, 5 * pair_distance + 7, std::int64_t{100003}}) {
    std::vector<int> visits(static_cast<std::size_t>(count), 0);
    const auto add = [](int a, int b) { return a + b; };
    const lapis::kernels::detail::ElementPairs<decltype(add), Visits, Visits, One> pairs{add, Visits{visits},
                                                                                         Visits{visits}, One{}, count};
    EXPECT_EQ(pairs.indices() % pair_distance, 0);
    EXPECT_LT(pairs.indices() * 2, count + 2 * pair_distance);  // no index beyond the last group
    for (std::int64_t j = 0; j < pairs.indices(); ++j) pairs(j);
    EXPECT_EQ(std::count(visits.begin(), visits.end(), 1), count) << count << " elements";
  }
}

}  // namespace
