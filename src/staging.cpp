// Staged copies' settings and the staging team (runtime/staging.hpp): threads started as copies
// ask for them, parked between copies, joined when the process exits.
#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "lapis/runtime/staging.hpp"
#include "settings.hpp"

namespace lapis {

const StagingSettings& staging_settings() noexcept { return detail::settings_or_defaults().staging; }

namespace detail {
namespace {

// The threads of run_staging_team: started as runs ask for them, parked between runs, joined when
// the process exits.
class StagingTeam {
 public:
  using Work = std::function<void(unsigned, unsigned, TeamBarrier&)>;

  StagingTeam() {
    pthread_atfork(nullptr, nullptr, [] { instance().after_fork(); });
  }

  static StagingTeam& instance() {
    static StagingTeam team;
    return team;
  }

  void run(unsigned wanted, const Work& work) {
    State& state = *state_;
    const std::lock_guard<std::mutex> one_run(state.run_mutex);
    wanted = std::max(1u, wanted);
    grow(state, wanted - 1);
    const unsigned team = std::min<unsigned>(wanted, static_cast<unsigned>(state.helpers.size()) + 1);
    TeamBarrier barrier(team);
    {
      const std::lock_guard<std::mutex> lock(state.mutex);
      state.work = &work;
      state.barrier = &barrier;
      state.team = team;
      state.pending = team - 1;
      ++state.generation;
    }
    state.started.notify_all();
    work(0, team, barrier);
    std::unique_lock<std::mutex> lock(state.mutex);
    state.finished.wait(lock, [&] { return state.pending == 0; });
  }

  ~StagingTeam() {
    {
      const std::lock_guard<std::mutex> lock(state_->mutex);
      state_->stopping = true;
    }
    state_->started.notify_all();
    for (auto& helper : state_->helpers) helper.join();
    delete state_;
  }

 private:
  struct State {
    std::mutex run_mutex, mutex;
    std::condition_variable started, finished;
    std::vector<std::thread> helpers;
    const Work* work = nullptr;
    TeamBarrier* barrier = nullptr;
    unsigned team = 0, pending = 0;
    std::size_t generation = 0;
    bool stopping = false;
  };

  // Called under run_mutex, so no run starts meanwhile: a new helper waits for the next one.
  static void grow(State& state, unsigned helpers) {
    while (state.helpers.size() < helpers) {
      try {
        state.helpers.emplace_back(serve, &state, static_cast<unsigned>(state.helpers.size()) + 1, state.generation);
      } catch (const std::system_error&) {
        return;  // no more threads to be had: runs go on with those there are
      }
    }
  }

  static void serve(State* state, unsigned member, std::size_t seen) {
    std::unique_lock<std::mutex> lock(state->mutex);
    for (;;) {
      state->started.wait(lock, [&] { return state->stopping || state->generation != seen; });
      if (state->stopping) return;
      seen = state->generation;
      if (member >= state->team) continue;  // a smaller team this time
      const Work& work = *state->work;
      TeamBarrier& barrier = *state->barrier;
      const unsigned team = state->team;
      lock.unlock();
      work(member, team, barrier);
      lock.lock();
      if (--state->pending == 0) state->finished.notify_one();
    }
  }

  // In a forked child, which has only the forking thread: the helpers are gone, and the state's
  // mutexes and condition variables still count their waits, so they cannot be used again (a
  // notify would wait for those waiters). A new state replaces it; the old one is never freed.
  void after_fork() {
    for (auto& helper : state_->helpers) helper.detach();
    state_->helpers.clear();
    state_ = new State;
  }

  State* state_ = new State;
};
}  // namespace

void run_staging_team(unsigned wanted, const std::function<void(unsigned, unsigned, TeamBarrier&)>& work) {
  StagingTeam::instance().run(wanted, work);
}

}  // namespace detail
}  // namespace lapis
