// lapis::DualBuffer: the AnyDualBuffer that holds memory (BufferPart, the other, is a part of one).
// It holds both sides of a DualView as raw bytes, with the modified flags and the transfer statistics, so that every
// element type and rank shares one compiled implementation. Only the two memory spaces are template parameters.
//
// The flags are kept even where both sides are one memory (aliased): a sync there copies nothing
// and only clears a flag, but the same misuse (both sides modified, a stale read under the Manual
// policy) raises on a CPU build as on a GPU, so a program that passes on a laptop passes anywhere.
//
// Thread safety: every operation holds the buffer's lock, so threads sharing a DualView never see
// half-updated flags and never copy the same data twice. Writing the data itself (through a view or
// pointer) is the caller's to coordinate, as with any array.
#pragma once

#include <Kokkos_Core.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "lapis/core/allocate_now.hpp"
#include "lapis/detail/allocation.hpp"
#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/core/errors.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/runtime/graph.hpp"
#include "lapis/runtime/host_registration.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/trace.hpp"
#include "lapis/core/shape.hpp"
#include "lapis/detail/copy_without_fences.hpp"
#include "lapis/detail/staged_copy.hpp"
#include "lapis/detail/strided_copy.hpp"
#include "lapis/core/transfer_guard.hpp"
#include "lapis/core/transfer_stats.hpp"

namespace lapis {

struct borrow_t {
  explicit borrow_t() = default;
};
inline constexpr borrow_t borrow{};
struct borrow_device_t {
  explicit borrow_device_t() = default;
};
inline constexpr borrow_device_t borrow_device{};
struct borrow_both_t {
  explicit borrow_both_t() = default;
};
inline constexpr borrow_both_t borrow_both{};

template <class DeviceMemorySpace, class HostMemorySpace = Kokkos::HostSpace>
class DualBuffer final : public AnyDualBuffer {
 public:
  using device_memory_space = DeviceMemorySpace;
  using host_memory_space = HostMemorySpace;

  // lapis-owned memory, contiguous in `order` on both sides. The sides in `now` are allocated now
  // (zero-filled unless `fill` says otherwise), the others on first use, zero-filled. `alias`: one
  // allocation serves both sides. (A caller that fills a side at once asks for it with
  // data_for_overwrite() instead, and nothing is zero-filled in vain.)
  DualBuffer(std::string label, const Shape& shape, Order order, bool alias, AllocateNow now,
             detail::Fill fill = detail::Fill::zeros)
      : label_(std::move(label)),
        shape_(shape),
        order_(order),
        alias_(alias),
        device_version_(detail::new_device_version()) {
    const RuntimeUse use;
    host_strides_ = device_strides_ = contiguous_strides(shape_, order_);
    if (now != AllocateNow::nothing && (alias_ || allocates(now, Side::device))) allocate(Side::device, fill);
    if (!alias_ && allocates(now, Side::host)) allocate(Side::host, fill);
    detail::register_buffer(this);
  }

  // The host side is caller-owned memory at `host` with byte strides `host_strides`, kept alive by
  // the caller (or by `owner`, which the buffer holds) and taken to hold the data (it starts out
  // modified). With `alias` (the device can read host memory), strides a Kokkos view can express
  // and an address aligned for the elements, the device side is that same memory; otherwise the
  // device side is allocated, contiguous in `device_order`, on first use. `block`: the allocation the
  // memory lies in, whose registration its copies share (host_registration.hpp); by default the
  // memory itself, registered for this buffer's life.
  DualBuffer(borrow_t, std::string label, const Shape& shape, void* host, const Strides& host_strides,
             bool host_writable, Order device_order, bool alias, std::shared_ptr<const void> owner = nullptr,
             detail::HostBlock block = {})
      : label_(std::move(label)),
        shape_(shape),
        order_(device_order),
        alias_(alias && strides_fit_view(shape, host_strides) && aligned_for_items(host, shape.itemsize)),
        borrowed_(true),
        host_writable_(host_writable),
        host_ptr_(static_cast<unsigned char*>(host)),
        host_strides_(host_strides),
        host_block_(block.begin != nullptr ? block : detail::HostBlock{host, shape.nbytes(), false}),
        owner_(std::move(owner)) {
    const RuntimeUse use;
    device_strides_ = alias_ ? host_strides_ : contiguous_strides(shape_, order_);
    modified_[index(Side::host)] = true;
    device_writes_unseen_ = alias_;  // the caller writes its memory at will
    detail::register_buffer(this);
  }

  // The device side is caller-owned device memory at `device` (a CuPy array, a PyTorch tensor, a
  // Kokkos view), contiguous in `order`, kept alive by the caller (or by `owner`, which the buffer
  // holds) and taken to hold the data (it starts out modified); the host side is allocated on first
  // use. For devices that do not share host memory.
  DualBuffer(borrow_device_t, std::string label, const Shape& shape, void* device, Order order,
             std::shared_ptr<const void> owner = nullptr)
      : label_(std::move(label)),
        shape_(shape),
        order_(order),
        alias_(false),
        device_borrowed_(true),
        device_writes_unseen_(true),
        device_ptr_(static_cast<unsigned char*>(device)),
        owner_(std::move(owner)) {
    const RuntimeUse use;
    host_strides_ = device_strides_ = contiguous_strides(shape_, order_);
    modified_[index(Side::device)] = true;
    detail::register_buffer(this);
  }

  // Both sides are caller-owned, contiguous in `order`: host memory at `host` and device memory at
  // `device` (the same memory with `alias`, or std::invalid_argument), held by `owner` (say, the
  // Kokkos views they came from) until finalize or this buffer's end. Both sides start out current.
  DualBuffer(borrow_both_t, std::string label, const Shape& shape, void* host, void* device, Order order, bool alias,
             std::shared_ptr<const void> owner)
      : label_(std::move(label)),
        shape_(shape),
        order_(order),
        alias_(alias),
        borrowed_(true),
        device_borrowed_(!alias),
        device_writes_unseen_(true),
        host_ptr_(static_cast<unsigned char*>(host)),
        device_ptr_(static_cast<unsigned char*>(device)),
        owner_(std::move(owner)) {
    const RuntimeUse use;
    if (alias_ && host != device)
      throw std::invalid_argument("lapis::DualView \"" + label_ +
                                  "\": the device can reach host memory, so both sides are one memory; two "
                                  "different views were given");
    host_strides_ = device_strides_ = contiguous_strides(shape_, order_);
    detail::register_buffer(this);
  }

  DualBuffer(const DualBuffer&) = delete;
  DualBuffer& operator=(const DualBuffer&) = delete;
  ~DualBuffer() override {
    // Borrowed host memory holds the device side's changes before its owner gets it back.
    try {
      const RuntimeUse use;
      std::lock_guard<std::recursive_mutex> lock(mutex_);
      write_back_borrowed_host();
    } catch (const RuntimeFinalizedError&) {  // finalize already did (release)
    }
    // A dying buffer has no borrower left (an export holds its DualView): lent memory is freed too.
    // Under the lock: a finalize on another thread may be releasing this buffer right now.
    {
      std::lock_guard<std::recursive_mutex> lock(mutex_);
      lent_[0] = lent_[1] = false;
    }
    detail::retire_buffer(this);
  }

  const std::string& label() const noexcept override { return label_; }
  const Shape& shape() const noexcept override { return shape_; }
  const Strides& strides(Side side) const noexcept override {
    return side == Side::host ? host_strides_ : device_strides_;
  }
  const char* space_name(Side side) const noexcept override {
    return side == Side::host ? HostMemorySpace::name() : DeviceMemorySpace::name();
  }
  bool allocated(Side side) const noexcept override {
    if (borrowed_ && (side == Side::host || alias_)) return true;  // the caller's memory, for the buffer's life
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    return has(side);
  }
  bool need_sync(Side side) const noexcept override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    return stale(side);
  }
  bool aliased() const noexcept override { return alias_; }
  bool borrowed(Side side) const noexcept override {
    return side == Side::host ? borrowed_ : device_borrowed_ || (alias_ && borrowed_);
  }
  bool host_writable() const noexcept override { return host_writable_; }
  const unsigned char* borrowed_address(Side side) const noexcept override {
    if (side == Side::host || alias_) return borrowed_ ? host_ptr_ : nullptr;  // (never changed once borrowed)
    return device_borrowed_ ? device_ptr_ : nullptr;
  }

  void* access(Side side, Access access, Intent intent = Intent::implicit,
               AddressUse address_use = AddressUse::kept) override {
    return access_on(side, access, intent, address_use);
  }
  // The same; a copy it makes is queued on `exec` where the copy allows it (fence `exec` before
  // reading the result).
  template <class... ExecutionSpace>
  void* access_on(Side side, Access access, Intent intent, AddressUse address_use, const ExecutionSpace&... exec) {
    // The caller's memory lies where it was given, for the buffer's life, and a kept address of it
    // changes nothing (lapis never sees its writes anyway): no lock, no runtime to hold.
    if (access == Access::address && borrowed_ && (side == Side::host || alias_)) return host_ptr_;
    if (side == Side::host && access != Access::address)
      refuse_while_recording(label_.c_str(), "reads or writes the host side");
    const RuntimeUse use;
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    const bool writes = access == Access::write || access == Access::overwrite || access == Access::mark;
    if (writes && side == Side::device && intent == Intent::implicit) refuse_if_write_back_disallowed(*this);
    switch (access) {
      case Access::address: break;
      case Access::sync: transfer_to(side, intent, exec...); return nullptr;
      case Access::read: transfer_to(side, intent, exec...); break;
      case Access::write:
        require_writable(side);
        transfer_to(side, intent, exec...);
        mark(side);
        break;
      case Access::overwrite:
        require_writable(side);
        if (!has(side)) allocate(side, detail::Fill::none);
        modified_[index(other(side))] = false;
        mark(side);
        break;
      case Access::mark:
        require_writable(side);
        if (!has(side)) allocate(side, detail::Fill::zeros);
        if (modified_[index(other(side))])
          throw ConcurrentModificationError(std::string("lapis: cannot mark the ") + side_name(side) +
                                            " side modified: the " + side_name(other(side)) +
                                            " side holds changes that were never synced");
        mark(side);
        return nullptr;
    }
    if (!has(side)) allocate(side, detail::Fill::zeros);
    if (address_use == AddressUse::kept && reaches_device(side)) device_writes_unseen_ = true;
    return raw_data(side);
  }

  // Without the lock (an overlap check asks it of every argument pair): both fields are atomic, and
  // device_writes_unseen_ never goes back to false.
  std::uint64_t device_version() const noexcept override {
    return device_writes_unseen_.load() ? 0 : device_version_.load();
  }

  void clear_sync_state() noexcept override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    modified_[0] = modified_[1] = false;
  }

  TransferStats transfers() const noexcept override { return stats_.load(); }

  void mark_lent(Side side) noexcept override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    lent_[index(side)] = true;
    if (reaches_device(side)) device_writes_unseen_ = true;
    if (side == Side::device || alias_) device_alloc_.mark_lent();
    if (side == Side::host) host_alloc_.mark_lent();
  }

  bool free_device_side() override {
    if (alias_ || device_borrowed_) return false;  // (fixed at construction: asked without the lock)
    try {
      const RuntimeUse use;
      std::lock_guard<std::recursive_mutex> lock(mutex_);
      // (an address kept may be in use: a view handed out, an export)
      if (lent_[index(Side::device)] || device_writes_unseen_ || stale(Side::host) || !has(Side::device) ||
          !has(Side::host))
        return false;
      device_alloc_ = {};
      host_registration_.reset();           // (its owner keeps it: the next copy asks again)
      modified_[index(Side::host)] = true;  // what the device side held is the host side's only
      return true;
    } catch (const RuntimeFinalizedError&) {  // finalized: release() freed it already
      return false;
    }
  }

  void release() noexcept override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    write_back_borrowed_host();  // (finalize: the runtime is held, Kokkos alive)
    host_registration_.reset();
    const bool lent = lent_[index(Side::host)] || lent_[index(Side::device)];
    // Heap memory (HostSpace) behind the host side stays: numpy arrays may view it.
    if (lent) host_alloc_.abandon_kokkos_memory();
    else host_alloc_.release_kokkos_memory();
    if (alias_ ? lent : lent_[index(Side::device)]) device_alloc_.abandon_kokkos_memory();
    else if (alias_) device_alloc_.release_kokkos_memory();  // it is the host side too
    else device_alloc_ = {};
    if (!borrowed_) host_ptr_ = alias_ ? device_alloc_.data() : host_alloc_.data();  // null once released
    if (lent) keep_until_exit(std::move(owner_));
    owner_.reset();
  }

 private:
  // Whether writing `side`'s memory writes the device side's.
  bool reaches_device(Side side) const noexcept { return side == Side::device || alias_; }

  unsigned char* raw_data(Side side) const noexcept {
    if (side == Side::host || alias_) return host_ptr_;
    return device_borrowed_ ? device_ptr_ : device_alloc_.data();
  }

  // What a borrower lapis cannot track may still use: held for the rest of the process, reachable.
  static void keep_until_exit(std::shared_ptr<const void> owner) noexcept {
    static auto* const kept = new std::vector<std::shared_ptr<const void>>;
    try {
      kept->push_back(std::move(owner));
    } catch (...) {  // out of memory for the list: never releasing it is the safe side
      new (std::nothrow) std::shared_ptr<const void>(std::move(owner));
    }
  }

  void allocate(Side side, detail::Fill fill) {  // under a RuntimeUse
    const std::size_t bytes = shape_.nbytes();
    if (side == Side::device || alias_) {
      // An aliased buffer lives in device memory, which the host can reach by definition.
      device_alloc_ = detail::Allocation<DeviceMemorySpace>(label_, bytes, fill, Side::device);
      device_version_ = detail::new_device_version();
      if (alias_) host_ptr_ = device_alloc_.data();
    } else {
      host_alloc_ = detail::Allocation<HostMemorySpace>(label_, bytes, fill, Side::host);
      host_ptr_ = host_alloc_.data();
    }
  }

  void require_writable(Side side) const { lapis::require_writable(*this, side); }

  void describe_copy(trace::Event& event, Side to, std::size_t bytes, bool explicit_copy, bool staged_copy) const {
    event.detail = direction_name(to == Side::device ? Direction::host_to_device : Direction::device_to_host);
    event.dtype = lapis::name(shape_.element);
    event.shape = shape_text(shape_);
    event.bytes = bytes;
    event.staged = staged_copy;
    event.explicit_ = explicit_copy;
  }

  // Under the lock, the runtime alive: where the host side is the caller's memory and the device
  // side holds changes it lacks, one implicit copy brings them over, so that no write is lost when
  // the buffer goes (its last handle dies, or finalize releases it). Never throws: a refused or
  // failed copy is reported on stderr.
  void write_back_borrowed_host() noexcept {
    if (!writes_back(*this) || !modified_[index(Side::device)] || !has(Side::device)) return;
    try {
      transfer_to(Side::host, Intent::implicit);
    } catch (const std::exception& e) {
      std::fprintf(stderr,
                   "lapis: \"%s\": the device side's changes could not be copied into the borrowed host memory "
                   "before the buffer went: %s\n",
                   label_.c_str(), e.what());
    }
  }

  // Under the lock: allocated(side) and need_sync(side), without taking the lock again.
  bool has(Side side) const noexcept {
    return (borrowed_ && (side == Side::host || alias_)) || raw_data(side) != nullptr;
  }
  bool stale(Side side) const noexcept { return modified_[index(other(side))]; }

  // Under the lock: `side` was written.
  void mark(Side side) {
    if (!has(side)) allocate(side, detail::Fill::zeros);
    modified_[index(side)] = true;
    if (reaches_device(side)) device_version_ = detail::new_device_version();
    if (Kokkos::Tools::profileLibraryLoaded())
      Kokkos::Tools::modifyDualView(label_, raw_data(side), side == Side::device);
  }

  template <class Space>
  using bytes_view = Kokkos::View<unsigned char*, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  // Under the lock: brings `to` up to date with one whole-allocation copy, if it is stale. A host
  // side laid out unlike the device side is packed into (or unpacked from) a staging buffer laid
  // out like it, on the host, around that copy.
  template <class... ExecutionSpace>
  void transfer_to(Side to, Intent intent, const ExecutionSpace&... exec) {
    if (intent == Intent::refused && stale(to))  // where the sides alias too: misuse fails everywhere
      throw StaleAccessError(std::string("lapis: the ") + side_name(to) + " side of \"" + label_ +
                             "\" is stale; call sync_" + side_name(to) + "() before reading it");
    if (alias_) {
      // One memory, nothing to copy: only the flags change. A device that shares host memory may
      // still run kernels asynchronously (an APU), and lapis's kernel calls return once queued:
      // the host waits, unless every space this Kokkos runs work on is done when its dispatch returns.
      if (!work_done_on_return && to == Side::host && sizeof...(ExecutionSpace) == 0) {
        const ExecutionGuard guard;
        Kokkos::fence();
      }
      if (stale(to)) synced(to);
      return;
    }
    if (!stale(to)) return;
    const std::size_t bytes = shape_.nbytes();
    const Direction direction = to == Side::device ? Direction::host_to_device : Direction::device_to_host;
    // (judged before anything changes)
    const bool explicit_copy = bytes != 0 && detail::guard_transfer(direction, intent == Intent::named, label_, shape_);
    if (!has(to)) allocate(to, detail::Fill::none);
    if (bytes != 0) {
      const detail::HostCopyPath path = host_copy_path(bytes);  // (its own trace event, before the copy's)
      const bool registered = path == detail::HostCopyPath::registered;
      const bool staged_copy = path == detail::HostCopyPath::staged || (!registered && staged(bytes));
      trace::Span span(trace::Kind::copy, to == Side::device ? "sync_device" : "sync_host", label_);
      if (span.recorded()) describe_copy(span.event, to, bytes, explicit_copy, staged_copy);
      if (staged_copy) copy_staged(to, exec...);
      else copy_direct(to, bytes, registered, exec...);
      stats_.record(direction, bytes);
      detail::process_transfer_counter().record(direction, bytes);
      if (to == Side::device) device_version_ = detail::new_device_version();
    }
    synced(to);
  }

  // Under the lock, before a copy of `bytes` between the sides: how it goes (host_registration.hpp),
  // registering the host side when the registry says so. Only pageable host memory laid out like the
  // device side is handed to the driver (a strided side is packed on the host first), and only from
  // a size on (smaller for lapis's own pooled blocks than for borrowed memory) it asks.
  detail::HostCopyPath host_copy_path(std::size_t bytes) noexcept {
    if constexpr (!std::is_same_v<HostMemorySpace, Kokkos::HostSpace>) {
      static_cast<void>(bytes);
      return detail::HostCopyPath::driver;
    } else {
      if (!is_contiguous(shape_, host_strides_, order_)) return detail::HostCopyPath::driver;
      const std::size_t least =
          borrowed_ ? detail::host_registration_min_bytes : detail::owned_host_registration_min_bytes;
      if (bytes < least) return detail::unregistered_copy_path(host_ptr_, bytes);
      // lapis's own host side: its pooled block, whose registration stays with it (kept)
      const detail::HostBlock block =
          borrowed_ ? host_block_ : detail::HostBlock{host_alloc_.data(), host_alloc_.capacity(), true};
      if (block.begin == nullptr) return detail::unregistered_copy_path(host_ptr_, bytes);  // (borrow_both)
      return host_registration_.acquire(block, label_);
    }
  }

  // Whether a copy of `bytes` goes through pinned staging (staged_copy.hpp): a large one, between
  // pageable host memory and a device side apart from it.
  bool staged(std::size_t bytes) const noexcept {
    const std::size_t threshold = staging_settings().min_bytes;
    return std::is_same_v<HostMemorySpace, Kokkos::HostSpace> && threshold != 0 && bytes >= threshold;
  }

  // The whole array to side `to` in chunks through two pinned buffers; returns with the copy done.
  template <class... ExecutionSpace>
  void copy_staged(Side to, const ExecutionSpace&... exec) {
    // made (and freed) outside the execution lock, as every allocation is
    const std::size_t staging_bytes = detail::staging_chunk_elements(shape_) * shape_.itemsize;
    detail::Allocation<PinnedHostSpace> first(label_ + " (staging)", staging_bytes, detail::Fill::none, Side::host);
    detail::Allocation<PinnedHostSpace> second(label_ + " (staging)", staging_bytes, detail::Fill::none, Side::host);
    unsigned char* const staging[2] = {first.data(), second.data()};
    const auto copy = [&](const auto& instance) {
      detail::staged_copy<DeviceMemorySpace>(to == Side::device, raw_data(Side::device), host_ptr_, host_strides_,
                                             shape_, order_, instance, staging);
    };
    const ExecutionGuard guard;
    if constexpr (sizeof...(ExecutionSpace) == 0) {
      Kokkos::fence();  // as deep_copy without an instance does
      copy(typename DeviceMemorySpace::execution_space());
    } else {
      copy(exec...);
    }
  }

  // The whole array to side `to` with one deep_copy, packed into (or unpacked from) a staging buffer
  // laid out like the device side where the host side's layout differs; asynchronous on `exec`
  // where no staging buffer is involved.
  // On `exec`, a copy of registered host memory is waited for: the driver reads and writes such memory
  // while the copy runs, and the caller may change or read it once the call returns, as it may after a
  // pageable copy (which the driver finishes on the host before returning).
  template <class... ExecutionSpace>
  void copy_direct(Side to, std::size_t bytes, bool registered, const ExecutionSpace&... exec) {
    const bool direct = is_contiguous(shape_, host_strides_, order_);
    // made (and freed) outside the execution lock, as every allocation is
    detail::Allocation<Kokkos::HostSpace> staging;
    if (!direct)
      staging = detail::Allocation<Kokkos::HostSpace>(label_ + " (staging)", bytes, detail::Fill::none, Side::host);
    const ExecutionGuard guard;
    bytes_view<DeviceMemorySpace> device(raw_data(Side::device), bytes);
    if (direct) {
      if constexpr (sizeof...(ExecutionSpace) == 0 && detail::copies_need_no_fences<DeviceMemorySpace>) {
        const bool copied =
            to == Side::device
                ? detail::copy_without_fences<DeviceMemorySpace, HostMemorySpace>(device.data(), host_ptr_, bytes)
                : detail::copy_without_fences<HostMemorySpace, DeviceMemorySpace>(host_ptr_, device.data(), bytes);
        if (copied) return;
      }
      bytes_view<HostMemorySpace> host(host_ptr_, bytes);
      if (to == Side::device) Kokkos::deep_copy(exec..., device, host);
      else Kokkos::deep_copy(exec..., host, device);
      if (registered) (exec.fence(), ...);
    } else {
      bytes_view<Kokkos::HostSpace> packed(staging.data(), bytes);
      if (to == Side::device) {
        detail::strided_copy(staging.data(), device_strides_, host_ptr_, host_strides_, shape_);
        Kokkos::deep_copy(exec..., device, packed);
        (exec.fence(), ...);  // the staging buffer is given up at the end of this scope
      } else {
        Kokkos::deep_copy(exec..., packed, device);
        (exec.fence(), ...);
        detail::strided_copy(host_ptr_, host_strides_, staging.data(), device_strides_, shape_);
      }
    }
  }

  void synced(Side to) {
    modified_[index(other(to))] = false;
    if (Kokkos::Tools::profileLibraryLoaded()) Kokkos::Tools::syncDualView(label_, raw_data(to), to == Side::device);
  }

  std::string label_;
  Shape shape_;
  Order order_;
  bool alias_;
  bool borrowed_ = false;         // the host side is lent
  bool device_borrowed_ = false;  // the device side is lent (device_ptr_)
  bool host_writable_ = true;
  std::atomic<bool> device_writes_unseen_{false};  // device_version() is 0: see there
  bool modified_[2] = {false, false};
  bool lent_[2] = {false, false};        // a side's memory went to code lapis cannot track (mark_lent)
  unsigned char* host_ptr_ = nullptr;    // borrowed memory, host_alloc_, or (aliased) device_alloc_
  unsigned char* device_ptr_ = nullptr;  // lent device memory, when device_borrowed_
  std::atomic<std::uint64_t> device_version_{0};
  Strides host_strides_{};
  Strides device_strides_{};
  detail::HostBlock host_block_;  // what borrowed host memory registers (host_copy_path)
  detail::Allocation<HostMemorySpace> host_alloc_;
  detail::HostBlockUse host_registration_;  // (ended before host_alloc_'s block goes back)
  detail::Allocation<DeviceMemorySpace> device_alloc_;
  std::shared_ptr<const void> owner_;  // what keeps memory lent by the caller alive, where lapis holds it
  detail::TransferCounter stats_;
  mutable std::recursive_mutex mutex_;  // recursive: operations allocate, and release under finalize
};

}  // namespace lapis
