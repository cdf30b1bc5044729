// One allocation of raw bytes in a memory space, counted in the process-wide live figures.
//
// Plain host memory (Kokkos::HostSpace) is taken from the C++ heap rather than from Kokkos: it then
// outlives Kokkos::finalize, so host data already handed out (a numpy array viewing a DualView's
// host side) never dangles. Every other space goes through Kokkos and is freed by
// release_kokkos_memory() before Kokkos is finalized.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "lapis/errors.hpp"
#include "lapis/execution_lock.hpp"
#include "lapis/export.hpp"

namespace lapis {
namespace detail {

struct LiveCounter {
  std::atomic<std::size_t> allocations{0};
  std::atomic<std::size_t> bytes{0};
};

// The process's one counter, in lapis's runtime library: every module's allocations add to it.
LAPIS_RUNTIME_API LiveCounter& live_counter() noexcept;

// Keeps live_counter() in step with the lifetime of the memory it describes.
class LiveToken {
 public:
  LiveToken() = default;
  explicit LiveToken(std::size_t bytes) : bytes_(bytes), active_(true) {
    live_counter().allocations.fetch_add(1, std::memory_order_relaxed);
    live_counter().bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  LiveToken(LiveToken&& other) noexcept : bytes_(other.bytes_), active_(other.active_) { other.active_ = false; }
  LiveToken& operator=(LiveToken&& other) noexcept {
    if (this != &other) {
      reset();
      bytes_ = other.bytes_;
      active_ = other.active_;
      other.active_ = false;
    }
    return *this;
  }
  ~LiveToken() { reset(); }
  void reset() noexcept {
    if (!active_) return;
    live_counter().allocations.fetch_sub(1, std::memory_order_relaxed);
    live_counter().bytes.fetch_sub(bytes_, std::memory_order_relaxed);
    active_ = false;
  }

 private:
  std::size_t bytes_ = 0;
  bool active_ = false;
};

enum class Fill { zeros, none };

// At least one byte is always allocated, so that even an empty array has a valid address.
template <class MemorySpace>
class Allocation {
 public:
  Allocation() = default;
  Allocation(const std::string& label, std::size_t bytes, Fill fill) : view_(make(label, bytes, fill)), token_(bytes) {}

  unsigned char* data() const noexcept { return view_.data(); }
  explicit operator bool() const noexcept { return view_.data() != nullptr; }
  void release_kokkos_memory() noexcept {
    view_ = view_type();
    token_.reset();
  }
  // Leaves the memory allocated for the rest of the process, no longer counted as lapis's: for
  // memory that a consumer lapis cannot track may use after Kokkos is finalized (a View freed
  // after Kokkos::finalize aborts). Kept reachable, so leak checkers see it as held.
  void abandon_kokkos_memory() noexcept {
    static auto* const abandoned = new std::vector<view_type>;
    try {
      abandoned->push_back(std::move(view_));
    } catch (...) {  // out of memory for the list: leaving the View unreleased is the safe side
      new (std::nothrow) view_type(std::move(view_));
    }
    view_ = view_type();
    token_.reset();
  }

 private:
  using view_type = Kokkos::View<unsigned char*, MemorySpace>;
  static view_type make(const std::string& label, std::size_t bytes, Fill fill) {
    const ExecutionGuard guard;  // zero-filling runs a kernel
    const std::size_t n = std::max<std::size_t>(bytes, 1);
    try {
      return fill == Fill::zeros ? view_type(Kokkos::view_alloc(label), n)
                                 : view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
    } catch (const std::runtime_error& e) {  // how Kokkos 4 reports a failed device allocation
      throw AllocationError(e.what());
    }
  }
  view_type view_;
  LiveToken token_;
};

template <>
class Allocation<Kokkos::HostSpace> {
 public:
  Allocation() = default;
  Allocation(const std::string&, std::size_t bytes, Fill fill)
      : data_(static_cast<unsigned char*>(::operator new(std::max<std::size_t>(bytes, 1), alignment))),
        token_(bytes) {
    if (fill == Fill::zeros) std::memset(data_.get(), 0, std::max<std::size_t>(bytes, 1));
  }

  unsigned char* data() const noexcept { return data_.get(); }
  explicit operator bool() const noexcept { return data_ != nullptr; }
  // Heap memory does not depend on Kokkos: it lives as long as its buffer.
  void release_kokkos_memory() noexcept {}
  void abandon_kokkos_memory() noexcept {}

 private:
  static constexpr std::align_val_t alignment{64};
  struct AlignedDelete {
    void operator()(unsigned char* p) const noexcept { ::operator delete(p, alignment); }
  };
  std::unique_ptr<unsigned char, AlignedDelete> data_;
  LiveToken token_;
};

}  // namespace detail

// Allocations owned by lapis now (host and device sides), and their bytes.
inline std::size_t live_allocations() noexcept {
  return detail::live_counter().allocations.load(std::memory_order_relaxed);
}
inline std::size_t live_bytes() noexcept { return detail::live_counter().bytes.load(std::memory_order_relaxed); }

}  // namespace lapis
