// One allocation of raw bytes in a memory space, from lapis's pool and counted in the process-wide
// live figures.
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
#include <type_traits>
#include <utility>
#include <vector>

#include "lapis/runtime/block_pool.hpp"
#include "lapis/core/errors.hpp"
#include "lapis/core/side.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/runtime/host_registration.hpp"
#include "lapis/runtime/trace.hpp"
#include "lapis/core/export.hpp"

namespace lapis {
namespace detail {

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

// A block of a Kokkos memory space.
template <class MemorySpace>
class KokkosBlock final : public Block {
 public:
  KokkosBlock(const std::string& label, std::size_t bytes)
      : view_(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), bytes) {}
  unsigned char* data() const noexcept override { return view_.data(); }
  void fill(unsigned char byte, std::size_t count) override {
    const ExecutionGuard guard;
    Kokkos::deep_copy(typename MemorySpace::execution_space(),
                      Kokkos::subview(view_, std::make_pair(std::size_t{0}, count)), byte);
  }

 private:
  Kokkos::View<unsigned char*, MemorySpace> view_;
};

// Plain host memory (Kokkos::HostSpace) from the C++ heap rather than from Kokkos: it outlives
// Kokkos::finalize, so host data already handed out (a numpy array viewing a DualView's host side)
// never dangles.
// A large block is aligned to and advised into huge pages (advise_huge_pages). A host side's copies
// may register it with the driver (host_registration.hpp), kept with the block while it is pooled and
// released before its memory is.
class HeapBlock final : public Block {
 public:
  explicit HeapBlock(std::size_t bytes)
      : alignment_(bytes >= huge_page_advice_bytes ? std::align_val_t{huge_page_bytes} : std::align_val_t{64}),
        data_(static_cast<unsigned char*>(::operator new(bytes, alignment_))) {
    if (bytes >= huge_page_advice_bytes) advise_huge_pages(data_, bytes);
  }
  ~HeapBlock() override {
    forget_kept_host_block(data_);
    ::operator delete(data_, alignment_);
  }
  unsigned char* data() const noexcept override { return data_; }
  void fill(unsigned char byte, std::size_t count) override { std::memset(data_, byte, count); }

 private:
  std::align_val_t alignment_;
  unsigned char* data_;
};

// One allocation of raw bytes in a memory space, from lapis's pool (block_pool.hpp), counted in the
// process-wide live figures while it is held. Memory of any space but HostSpace needs a live
// Kokkos: release_kokkos_memory() gives it up before Kokkos is finalized.
template <class MemorySpace>
class Allocation {
 public:
  Allocation() = default;
  // At least one byte is always allocated, so that even an empty array has a valid address. `side`
  // is the side whose memory it is (the trace counts each side's memory in use): a DualView's side,
  // or the device for kernels' scratch and the host for staging buffers.
  Allocation(const std::string& label, std::size_t bytes, Fill fill, Side side)
      : capacity_(BlockPool::capacity_for(std::max<std::size_t>(bytes, 1))),
        side_(side),
        block_(obtain(label, capacity_, pool_hit_)),
        token_(bytes) {
    if (fill == Fill::zeros) block_->fill(0, std::max<std::size_t>(bytes, 1));
    if (trace::on()) {
      traced_in_ = trace::latest_started();
      traced_label_ = label;
      trace_event(trace::Kind::allocate);
    }
  }
  Allocation(Allocation&& other) noexcept = default;
  Allocation& operator=(Allocation&& other) noexcept {
    if (this != &other) {
      give_back();
      capacity_ = other.capacity_;
      side_ = other.side_;
      reusable_ = other.reusable_;
      pool_hit_ = other.pool_hit_;
      block_ = std::move(other.block_);
      token_ = std::move(other.token_);
      traced_in_ = std::exchange(other.traced_in_, 0);
      traced_label_ = std::move(other.traced_label_);
    }
    return *this;
  }
  ~Allocation() { give_back(); }

  unsigned char* data() const noexcept { return block_ ? block_->data() : nullptr; }
  // The block's bytes: at least the bytes asked for (the pool rounds sizes up).
  std::size_t capacity() const noexcept { return block_ ? capacity_ : 0; }
  explicit operator bool() const noexcept { return block_ != nullptr; }
  // The memory went where lapis cannot order its use (another library's stream): when given up it
  // goes back to the memory space, whose free waits for the device, instead of to the pool.
  void mark_lent() noexcept { reusable_ = false; }
  void release_kokkos_memory() noexcept {
    if constexpr (!heap) give_back();
  }
  // Leaves the memory allocated for the rest of the process, no longer counted as lapis's: for
  // memory that a consumer lapis cannot track may use after Kokkos is finalized (a View freed
  // after Kokkos::finalize aborts). Kept reachable, so leak checkers see it as held.
  void abandon_kokkos_memory() noexcept {
    if constexpr (!heap) {
      static auto* const abandoned = new std::vector<std::unique_ptr<Block>>;
      try {
        abandoned->push_back(std::move(block_));
      } catch (...) {  // out of memory for the list: leaving the block unreleased is the safe side
        static_cast<void>(block_.release());
      }
      token_.reset();
    }
  }

 private:
  static constexpr bool heap = std::is_same_v<MemorySpace, Kokkos::HostSpace>;

  static std::unique_ptr<Block> new_block(const std::string& label, std::size_t capacity) {
    try {
      if constexpr (heap) return std::make_unique<HeapBlock>(capacity);
      else return std::make_unique<KokkosBlock<MemorySpace>>(label, capacity);
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::runtime_error& e) {  // how Kokkos 4 reports a failed device allocation
      throw AllocationError(e.what());
    }
  }

  // A cached block (`pool_hit`), or a new one; when the memory space has none left, the pool gives
  // its cached blocks of the space back and the allocation is tried once more.
  static std::unique_ptr<Block> obtain(const std::string& label, std::size_t capacity, bool& pool_hit) {
    const std::string space = MemorySpace::name();
    pool_hit = true;
    if (auto cached = block_pool().take(space, capacity)) return cached;
    pool_hit = false;
    std::unique_ptr<Block> block;
    const AllocationDuringCapture tolerated;
    try {
      block = new_block(label, capacity);
    } catch (const std::bad_alloc&) {
      if (block_pool().empty(&space) == 0) throw;
      block = new_block(label, capacity);
    }
    block_pool().allocated(space, capacity);
    return block;
  }

  void give_back() noexcept {
    if (!block_) return;
    block_pool().give(MemorySpace::name(), capacity_, std::move(block_), reusable_);
    token_.reset();
    if (traced_in_ != 0) trace_event(trace::Kind::free);
  }

  // Allocations made while a trace records are traced to their free, in the recordings that saw
  // them made, so that the two balance.
  void trace_event(trace::Kind kind) const noexcept {
    try {
      trace::Event event;
      event.kind = kind;
      event.name = traced_label_;
      event.detail = side_name(side_);
      event.bytes = capacity_;
      event.pool_hit = kind == trace::Kind::allocate && pool_hit_;
      event.start_us = trace::now_us();
      if (kind == trace::Kind::free) trace::record_free(std::move(event), traced_in_);
      else trace::record(std::move(event));
    } catch (...) {  // no memory for the event: the trace loses it
    }
  }

  std::size_t capacity_ = 0;
  Side side_ = Side::host;
  bool reusable_ = true;
  bool pool_hit_ = false;
  std::unique_ptr<Block> block_;
  LiveToken token_;
  std::uint64_t traced_in_ = 0;  // trace::latest_started() when allocated while recording; 0: not traced
  std::string traced_label_;
};

}  // namespace detail

}  // namespace lapis
