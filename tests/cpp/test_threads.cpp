// Threads sharing lapis: flags and counts stay exact when threads sync one DualView, threads may
// run lapis's kernels on DualViews at once (Kokkos's OpenMP backend takes work from one thread at a
// time: lapis's execution lock queues them), and
// lapis::finalize on one thread waits for the others' operations in flight, then refuses new ones.
// The thread sanitizer run (scripts/sanitize.sh) runs this program; it finalizes lapis itself.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lapis/dualview.hpp"
#include "lapis/kernels.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/runtime/runtime.hpp"

namespace {

using DV = lapis::DualView<double*, Kokkos::LayoutRight, lapis::SimulatedDevice>;

// A guard inside a guard on one thread takes nothing (memory freed under a kernel's guard is filled
// under it: the pool's poison mode hung there on CUDA), while other threads still wait for the lock.
TEST(Threads, TheExecutionLockIsTakenOncePerThread) {
  lapis::initialize();
  std::atomic<bool> other_took_it{false};
  std::thread other;
  {
    const lapis::ExecutionGuard outer;
    {
      const lapis::ExecutionGuard inner;
      EXPECT_TRUE(lapis::execution_lock_held());
      other = std::thread([&] {
        const lapis::ExecutionGuard guard;
        other_took_it = true;
      });
    }
    EXPECT_TRUE(lapis::execution_lock_held());  // the inner guard gave back nothing
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(other_took_it);
  }
  EXPECT_FALSE(lapis::execution_lock_held());
  other.join();
  EXPECT_TRUE(other_took_it);
}

TEST(Threads, SharedDualViewIsCopiedOnceAndOwnOnesStayExact) {
  lapis::initialize();
  DV shared("shared", 1000);
  shared.view_host()(999) = 3.0;
  shared.modify_host();
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      DV own("own", 100);
      for (int i = 0; i < 50; ++i) {
        shared.sync_device();
        if (shared.view_device()(999) != 3.0) ++wrong;  // the simulated device side is host memory
        own.view_host_for_overwrite()(0) = t + i;
        own.sync_device();
        if (own.view_device()(0) != t + i) ++wrong;
      }
      if (own.transfers() != lapis::TransferStats{50, 50 * 800, 0, 0}) ++wrong;
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(shared.transfers(), (lapis::TransferStats{1, 8000, 0, 0}));  // one upload among 8 threads
}

TEST(Threads, KernelsOnDualViewsRunFromManyThreadsAtOnce) {
  lapis::initialize();
  using Vector = lapis::DualView<double*>;
  Vector ones("ones", 1000);
  for (int i = 0; i < 1000; ++i) ones.view_host_for_overwrite()(i) = 1.0;
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      Vector sum("sum", 1000);
      for (int i = 0; i < 20; ++i) {
        lapis::kernels::matadd(ones, ones, sum);
        if (lapis::kernels::dot(sum, ones) != 2000.0) ++wrong;
      }
      sum.sync_host();
      if (sum.view_host()(t) != 2.0) ++wrong;
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

// A write access syncs and marks in one step under the buffer's lock: threads writing the two sides
// in turn never see the other's half-done access (a mark between a sync and its mark raised
// ConcurrentModificationError when they were separate steps).
TEST(Threads, WriteAccessesToBothSidesNeverInterleave) {
  lapis::initialize();
  DV shared("shared", 64);
  std::atomic<int> refused{0};
  const auto writer = [&](lapis::Side side) {
    for (int i = 0; i < 500; ++i) {
      try {
        if (side == lapis::Side::host) shared.view_host(lapis::Access::write);
        else shared.view_device(lapis::Access::write);
      } catch (const lapis::ConcurrentModificationError&) {
        ++refused;
      }
    }
  };
  std::thread host(writer, lapis::Side::host), device(writer, lapis::Side::device);
  host.join();
  device.join();
  EXPECT_EQ(refused.load(), 0);
  const lapis::TransferStats copies = shared.transfers();
  EXPECT_EQ(copies.h2d_count + copies.d2h_count, copies.h2d_bytes / 512 + copies.d2h_bytes / 512);  // whole copies only
}

// The threads make only lapis calls (allocations, marks, syncs): a Kokkos view held across finalize
// breaks Kokkos's own rule (tracked_view.hpp), so none is held here.
TEST(Threads, FinalizeWaitsForOperationsInFlightAndRefusesNewOnes) {  // last: it finalizes
  std::atomic<int> refused{0}, other{0}, round_trips{0};
  std::mutex mutex;
  std::vector<std::string> unexpected;  // what the threads caught that was not a refusal
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (;;) {  // until finalize refuses a call
        try {
          DV dv("racing", 4096);
          dv.modify_host();
          dv.sync_device();
          dv.modify_device();
          dv.sync_host();
          if (dv.transfers() != lapis::TransferStats{1, 4096 * 8, 1, 4096 * 8}) ++other;
          ++round_trips;
        } catch (const lapis::RuntimeFinalizedError&) {
          ++refused;
          return;
        } catch (const std::exception& e) {
          const std::lock_guard<std::mutex> lock(mutex);
          unexpected.push_back(e.what());
          ++other;
          return;
        }
      }
    });
  while (round_trips < 100 && other == 0) std::this_thread::yield();
  lapis::finalize();
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(other.load(), 0);
  for (const auto& what : unexpected) ADD_FAILURE() << "a thread caught: " << what;
  EXPECT_EQ(refused.load(), 4);
  EXPECT_TRUE(lapis::is_finalized());
}

}  // namespace
