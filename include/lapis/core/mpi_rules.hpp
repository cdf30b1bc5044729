// The checks every lapis MPI operation makes before it touches a DualView or MPI, stated once for
// C++ (lapis/mpi.hpp, over MPI's C API) and Python (lapis.mpi, over mpi4py, through lapis._core):
// the same rules with the same messages. MPI's own values (MPI_PROC_NULL, the wildcards, the
// communicator's size and MPI_TAG_UB) are the caller's, so nothing here needs <mpi.h>. `who` names
// the operation as its language does ("lapis::mpi::send", "lapis.mpi.send"). Each throws
// std::invalid_argument (Python's ValueError) but where it says otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "lapis/core/element_type.hpp"
#include "lapis/core/shape.hpp"

namespace lapis::mpi_rules {

// The least MPI_TAG_UB that MPI promises, where a communicator does not say.
inline constexpr std::int64_t least_tag_upper_bound = 32767;

// `rank` (the argument `name`) must be a rank of a group of `size`, `proc_null`, or `wildcard`
// where `wildcard_allowed` (a receive's MPI_ANY_SOURCE).
inline void check_peer(const std::string& who, const char* name, std::int64_t rank, std::int64_t size,
                       std::int64_t proc_null, bool wildcard_allowed, std::int64_t wildcard) {
  if ((0 <= rank && rank < size) || rank == proc_null || (wildcard_allowed && rank == wildcard)) return;
  throw std::invalid_argument(who + ": " + name + "=" + std::to_string(rank) +
                              " is not a rank of this communicator (0 to " + std::to_string(size - 1) + ")");
}

// `tag` must be in [0, upper] (a communicator's MPI_TAG_UB, or least_tag_upper_bound), or
// `wildcard` where `wildcard_allowed` (a receive's MPI_ANY_TAG).
inline void check_tag(const std::string& who, std::int64_t tag, std::int64_t upper, bool wildcard_allowed,
                      std::int64_t wildcard) {
  if ((0 <= tag && tag <= upper) || (wildcard_allowed && tag == wildcard)) return;
  throw std::invalid_argument(who + ": tag=" + std::to_string(tag) + " is out of range (0 to " + std::to_string(upper) +
                              ")");
}

// A message of `items` elements (or bytes) must fit MPI's int count.
inline void check_count(const std::string& who, std::size_t items) {
  if (items <= static_cast<std::size_t>(INT32_MAX)) return;
  throw std::invalid_argument(who + ": " + std::to_string(items) + " elements are more than one MPI message counts");
}

// A received message of `bytes` must fill the DualView of `shape` exactly.
inline void check_message_size(const std::string& who, std::int64_t source, std::int64_t bytes, const Shape& shape) {
  if (bytes >= 0 && static_cast<std::size_t>(bytes) == shape.nbytes()) return;
  throw std::invalid_argument(who + ": the message from rank " + std::to_string(source) + " has " +
                              std::to_string(bytes) + " bytes; the DualView (" + name(shape.element) + ", shape " +
                              shape_text(shape) + ") takes " + std::to_string(shape.nbytes()));
}

// Refuses to hand MPI device memory that the MPI library says it cannot read (Open MPI's
// MPIX_Query_cuda_support()): it would dereference the pointer on the host. std::runtime_error.
[[noreturn]] inline void refuse_unreadable_device_memory(const std::string& who) {
  throw std::runtime_error(who +
                           ": LAPIS_MPI_GPU_AWARE=1 hands MPI device memory, but this MPI says it cannot read "
                           "CUDA memory (MPIX_Query_cuda_support): unset LAPIS_MPI_GPU_AWARE or use a CUDA-aware MPI");
}

}  // namespace lapis::mpi_rules
