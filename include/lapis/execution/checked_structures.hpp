// The sparse structures that kernels on DualViews have found valid, remembered by the device
// contents they were checked at (AnyDualBuffer::device_version). A kernel that meets the same
// structure again skips its check, and with it the host's wait for the verdict, so that an
// iterative solver's products queue one after another as dense kernels do. Arrays whose writes
// lapis cannot all see (version 0: borrowed memory, a view or export handed out) are checked at
// every call. As with any array, a thread writing a structure while another thread's kernel reads
// it, unsynchronized, is a data race: the verdict of a check racing a write is not to be trusted.
#pragma once

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/core/element_type.hpp"
#include "lapis/runtime/graph.hpp"

namespace lapis::kernels::detail {

// One array of a structure as a kernel reads it: its device contents and where its view lies.
struct ArrayState {
  std::uint64_t version = 0;
  const void* data = nullptr;
  std::int64_t extent = 0, stride = 0;
  ElementType element = ElementType::int8;

  bool operator==(const ArrayState& other) const noexcept {
    return version == other.version && data == other.data && extent == other.extent && stride == other.stride &&
           element == other.element;
  }
};

// The state of DualView `dv` read through its device view `view` (rank 1). Take it after the call's
// reads (a read may upload) and before its writes: a write's new version must not name the contents
// the check saw.
template <class DV, class View>
ArrayState array_state(const DV& dv, const View& view) {
  const auto buffer = dv.buffer();
  return {buffer ? buffer->device_version() : 0, view.data(), static_cast<std::int64_t>(view.extent(0)),
          static_cast<std::int64_t>(view.stride(0)), element_type_v<typename View::non_const_value_type>};
}

// A kernel's structure: its arrays' states (up to three) and the matrix's shape.
class CheckedStructure {
 public:
  CheckedStructure(const char* kernel, std::int64_t rows, std::int64_t columns, std::array<ArrayState, 3> arrays)
      : key_{kernel, rows, columns, arrays} {}

  // Whether it was found valid before, unchanged since: the kernel may skip its check. When not,
  // and its verdict can be remembered, everything queued on every instance is finished first, so
  // that the check sees the arrays' last writes (a copy the caller queued on an instance of its own
  // included): the check waits for its verdict anyway.
  bool found_valid_before() const {
    if (!trackable()) return false;
    {
      Table& table = valid_structures();
      const std::lock_guard<std::mutex> lock(table.mutex);
      for (const Key& key : table.keys)
        if (key == key_) return true;
    }
    Kokkos::fence();
    return false;
  }

  // Records that its check passed (a later write of any array changes its version, and the record
  // no longer matches). Nothing passed where a graph's replay suppressed the check's launch.
  void remember_valid() const {
    if (!trackable() || lapis::detail::launches_suppressed()) return;
    Table& table = valid_structures();
    const std::lock_guard<std::mutex> lock(table.mutex);
    table.keys[table.next] = key_;
    table.next = (table.next + 1) % table.keys.size();
  }

 private:
  struct Key {
    const char* kernel = nullptr;
    std::int64_t rows = 0, columns = 0;
    std::array<ArrayState, 3> arrays{};

    bool operator==(const Key& other) const noexcept {
      return kernel != nullptr && other.kernel != nullptr && std::strcmp(kernel, other.kernel) == 0 &&
             rows == other.rows && columns == other.columns && arrays == other.arrays;
    }
  };

  // A few structures at a time, the oldest record replaced first: a solver reuses one or two.
  struct Table {
    std::mutex mutex;
    std::array<Key, 16> keys{};
    std::size_t next = 0;
  };

  static Table& valid_structures() {
    static Table table;
    return table;
  }

  // Every array with contents has a version (an empty one, or an unused slot, has nothing to change).
  bool trackable() const noexcept {
    for (const ArrayState& array : key_.arrays)
      if (array.extent != 0 && array.version == 0) return false;
    return true;
  }

  Key key_;
};

}  // namespace lapis::kernels::detail
