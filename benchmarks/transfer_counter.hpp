// Counts host<->device copies the same way for every strategy, through Kokkos's deep_copy Tools
// callback, so that no strategy counts itself. A copy's direction comes from the memory spaces'
// names; where both are host memory (the simulated device on a CPU build), from whether each
// pointer lies in a range registered as host data.
#pragma once

#include <Kokkos_Core.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>

namespace lapis::bench {

struct Copies {
  std::uint64_t h2d_count = 0, h2d_bytes = 0, d2h_count = 0, d2h_bytes = 0;
};

class TransferCounter {
 public:
  static TransferCounter& instance() {
    static TransferCounter counter;
    return counter;
  }

  // Call after Kokkos::initialize.
  void install() { Kokkos::Tools::Experimental::set_begin_deep_copy_callback(&on_deep_copy); }

  // No Tools callback while it lives, so that Kokkos runs as it does in a program without tools
  // (with one installed, every kernel launch reports to Kokkos Tools): for the benchmarks that
  // time calls and count no copies.
  class Paused {
   public:
    Paused() { Kokkos::Tools::Experimental::set_begin_deep_copy_callback(nullptr); }
    ~Paused() { instance().install(); }
    Paused(const Paused&) = delete;
    Paused& operator=(const Paused&) = delete;
  };

  void register_host_range(const void* data, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    host_ranges_[static_cast<const char*>(data)] = bytes;
  }
  void unregister_host_range(const void* data) {
    std::lock_guard<std::mutex> lock(mutex_);
    host_ranges_.erase(static_cast<const char*>(data));
  }

  Copies read() const { return {h2d_count_.load(), h2d_bytes_.load(), d2h_count_.load(), d2h_bytes_.load()}; }

 private:
  static bool host_space(const char* name) { return std::strcmp(name, "Host") == 0 || std::strstr(name, "HostPinned"); }

  bool on_host(Kokkos::Tools::SpaceHandle space, const void* ptr) {
    if (!host_space(space.name)) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    auto p = static_cast<const char*>(ptr);
    auto it = host_ranges_.upper_bound(p);
    if (it == host_ranges_.begin()) return false;
    --it;
    return p < it->first + it->second;
  }

  static void on_deep_copy(Kokkos::Tools::SpaceHandle dst_space, const char*, const void* dst,
                           Kokkos::Tools::SpaceHandle src_space, const char*, const void* src, std::uint64_t bytes) {
    auto& self = instance();
    const bool dst_host = self.on_host(dst_space, dst) || (host_space(dst_space.name) && !host_space(src_space.name));
    const bool src_host = self.on_host(src_space, src) || (host_space(src_space.name) && !host_space(dst_space.name));
    if (src_host && !dst_host) {
      self.h2d_count_++;
      self.h2d_bytes_ += bytes;
    } else if (dst_host && !src_host) {
      self.d2h_count_++;
      self.d2h_bytes_ += bytes;
    }
  }

  std::mutex mutex_;
  std::map<const char*, std::size_t> host_ranges_;
  std::atomic<std::uint64_t> h2d_count_{0}, h2d_bytes_{0}, d2h_count_{0}, d2h_bytes_{0};
};

}  // namespace lapis::bench
