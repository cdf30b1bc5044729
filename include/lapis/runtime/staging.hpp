// Staged copies' share of lapis's runtime library: their settings (src/settings.cpp parses them) and
// the team of threads that copies chunks (src/staging.cpp). detail/staged_copy.hpp stages copies
// with both.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>

#include "lapis/core/export.hpp"

namespace lapis {

// When and how copies are staged, read once per process from the environment (strictly: a bad value
// stops lapis::initialize with std::invalid_argument naming the variable and its range):
// LAPIS_STAGING_MIN_BYTES (default 4 MiB where device memory is apart from host memory; 0 turns
// staging off; on builds whose device memory is host memory it is off unless set, which lets the
// simulated device exercise it), LAPIS_STAGING_CHUNK_BYTES (1 byte to 1 TiB; default 16 MiB; a
// copy's staging buffers are never larger than the copy), LAPIS_STAGING_THREADS (1 to 64; default:
// the hardware's threads, at most 8).
struct StagingSettings {
  std::size_t min_bytes;  // 0: never staged
  std::size_t chunk_bytes;
  unsigned threads;
};
LAPIS_RUNTIME_API const StagingSettings& staging_settings() noexcept;

namespace detail {

// A barrier for a fixed team of threads (std::barrier is C++20).
class TeamBarrier {
 public:
  explicit TeamBarrier(unsigned count) : count_(count) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::size_t generation = generation_;
    if (++waiting_ == count_) {
      waiting_ = 0;
      ++generation_;
      changed_.notify_all();
    } else {
      changed_.wait(lock, [&] { return generation != generation_; });
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  unsigned count_, waiting_ = 0;
  std::size_t generation_ = 0;
};

// Runs work(member, team, barrier) for member = 0 .. team - 1 at once, member 0 on the calling
// thread and the others on lapis's staging threads: at most `wanted` members in all, fewer if no
// more threads could be started. The threads are started on first use and kept for the process, so
// a copy pays for waking them, not for starting them (tens of microseconds each). One run at a time;
// `work` must not throw on members other than 0.
LAPIS_RUNTIME_API void run_staging_team(unsigned wanted,
                                        const std::function<void(unsigned member, unsigned team, TeamBarrier&)>& work);

}  // namespace detail
}  // namespace lapis
