// lapis::finalize called from inside an operation (a RuntimeUse on its own thread) waits for the
// other threads' operations to end, counting its own as still open, and then finishes: the last
// thread to leave wakes it even though the count it leaves behind is one, not zero.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "lapis/runtime/runtime.hpp"

namespace {

TEST(Finalize, FromInsideAnOperationWaitsForTheOthersThenEnds) {
  lapis::initialize();
  std::atomic<bool> entered{false}, finalize_began{false};
  std::thread other([&] {
    const lapis::RuntimeUse use;
    entered = true;
    while (!finalize_began) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // finalize is waiting for this use
  });
  while (!entered) std::this_thread::yield();
  {
    const lapis::RuntimeUse use;
    finalize_began = true;
    lapis::finalize();
    EXPECT_TRUE(lapis::is_finalized());
  }
  other.join();
  EXPECT_THROW(lapis::RuntimeUse(), lapis::RuntimeFinalizedError);
}

}  // namespace
