// DualViews as MPI buffers for C++ (modules, drivers), over the MPI C API, by the protocol Python's
// lapis.mpi follows (Tpetra's): each operation uses the communication side
// (lapis::communication_side(): the host side, or the device side where LAPIS_MPI_GPU_AWARE=1). A
// send syncs that side first (an implicit copy where one is needed: counted, judged by the transfer
// guard); a receive marks it modified without copying anything to it. A device side goes to MPI
// only once lapis's queued kernels are done. Messages are the bytes of contiguous DualViews (parts
// included), so C++ and Python ranks exchange them freely; a part shares its whole allocation's
// state, so a host-staged send of a part syncs the whole: pack halos into DualViews of their own.
//
// Include it where <mpi.h> is found (lapis itself does not depend on MPI). Errors are thrown:
// std::invalid_argument for a message or buffer that does not fit, std::runtime_error for an MPI
// error (with MPI's own text).
#pragma once

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support, where it has it
#endif

#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "lapis/core/mpi_rules.hpp"
#include "lapis/dualview.hpp"
#include "lapis/interop/lend.hpp"

namespace lapis::mpi {
namespace detail {

// The name of operation `who` in errors ("lapis::mpi::send").
inline std::string operation(const char* who) { return std::string("lapis::mpi::") + who; }

inline void check(int code, const char* who) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(operation(who) + ": " + std::string(text, length));
}

// MPI's datatype for elements of type T: LAPIS_ELEMENT_TYPES's MPI column for T's element type
// (MPI_BYTE, counted in bytes, where MPI has no name for it: see count()).
template <class T>
MPI_Datatype datatype() {
  switch (element_type_v<T>) {
#define LAPIS_MPI_DATATYPE_CASE(element, cpp, name, itemsize, kind, dlpack, format, mpi) \
  case ElementType::element: return mpi;
    LAPIS_ELEMENT_TYPES(LAPIS_MPI_DATATYPE_CASE)
#undef LAPIS_MPI_DATATYPE_CASE
  }
  return MPI_BYTE;
}

// MPI's count of a DualView's elements in datatype<T>() (its bytes, for types MPI has no name for).
template <class T>
int count(const AnyDualBuffer& buffer, const char* who) {
  const std::size_t items = datatype<T>() == MPI_BYTE ? buffer.shape().nbytes() : buffer.shape().size();
  mpi_rules::check_count(operation(who), items);
  return static_cast<int>(items);
}

// Throws std::invalid_argument unless `rank` (the argument `name`) is a rank of comm's (remote)
// group, MPI_PROC_NULL or (where `any` allows it) MPI_ANY_SOURCE: checked before a receive's side
// is prepared, which would otherwise lose the device side's unsynced changes to a call MPI then refuses.
inline void check_rank(int rank, MPI_Comm comm, bool any, const char* who, const char* name) {
  int inter = 0, size = 0;
  check(MPI_Comm_test_inter(comm, &inter), who);
  check(inter ? MPI_Comm_remote_size(comm, &size) : MPI_Comm_size(comm, &size), who);
  mpi_rules::check_peer(operation(who), name, rank, size, MPI_PROC_NULL, any, MPI_ANY_SOURCE);
}

// The same for a tag: from 0 to MPI_TAG_UB, or MPI_ANY_TAG where `any` allows it.
inline void check_tag(int tag, MPI_Comm comm, bool any, const char* who) {
  int* upper = nullptr;
  int found = 0;
  check(MPI_Comm_get_attr(comm, MPI_TAG_UB, &upper, &found), who);
  mpi_rules::check_tag(operation(who), tag, found ? *upper : mpi_rules::least_tag_upper_bound, any, MPI_ANY_TAG);
}

// Throws std::runtime_error where the communication side is device memory the host cannot reach
// and the MPI library says it cannot read it either (Open MPI's CUDA extension), instead of
// handing it a pointer it would dereference on the host.
inline void require_device_memory_support(const char* who) {
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, DefaultDevice::memory_space>::accessible) {
    bool readable = true;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    readable = MPIX_Query_cuda_support() == 1;
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
    readable = false;  // built without CUDA support
#endif
    if (!readable) mpi_rules::refuse_unreadable_device_memory(operation(who));
  }
}

// The communication side's address after `access`, for a contiguous buffer.
inline void* side_for(AnyDualBuffer& buffer, Access access, const char* who) {
  const Side side = communication_side();
  if (!is_contiguous(buffer.shape(), buffer.strides(side), Order::right))
    throw std::invalid_argument(operation(who) + ": \"" + buffer.label() +
                                "\" is not contiguous; copy it into a DualView of its own");
  if (side == Side::device) {
    require_device_memory_support(who);
    return lend_device(buffer, access, DefaultDevice::execution_space());
  }
  return buffer.access(Side::host, access);
}

// What send and isend check, in this order, and the side they send from.
inline const void* side_to_send(AnyDualBuffer& buffer, int dest, int tag, MPI_Comm comm, const char* who) {
  check_rank(dest, comm, false, who, "dest");
  check_tag(tag, comm, false, who);
  return side_for(buffer, Access::read, who);
}

// Starts MPI_Isend or MPI_Irecv on `data`, the communication side of `buffer` (of T).
template <class T, class Start, class Data>
MPI_Request start(Start start_operation, Data data, AnyDualBuffer& buffer, int peer, int tag, MPI_Comm comm,
                  const char* who) {
  MPI_Request request;
  check(start_operation(data, count<T>(buffer, who), datatype<T>(), peer, tag, comm, &request), who);
  return request;
}

}  // namespace detail

// Sends dv's communication side to rank `dest` (blocking).
template <class DV>
void send(DV& dv, int dest, int tag, MPI_Comm comm) {
  using T = typename DV::value_type;
  AnyDualBuffer& buffer = *dv.buffer();
  const void* data = detail::side_to_send(buffer, dest, tag, comm, "send");
  detail::check(MPI_Send(data, detail::count<T>(buffer, "send"), detail::datatype<T>(), dest, tag, comm), "send");
}

// Receives a message into dv's communication side, marked modified (blocking). The message's size
// and dv's writability are checked first: if either fails, the message is consumed, dv untouched,
// and std::invalid_argument (or lapis::ReadOnlyError) thrown.
template <class DV>
MPI_Status recv(DV& dv, int source, int tag, MPI_Comm comm) {
  using T = typename DV::value_type;
  AnyDualBuffer& buffer = *dv.buffer();
  detail::check_rank(source, comm, true, "recv", "source");
  detail::check_tag(tag, comm, true, "recv");
  MPI_Status status;
  detail::check(MPI_Probe(source, tag, comm, &status), "recv");
  int bytes = 0;
  detail::check(MPI_Get_count(&status, MPI_BYTE, &bytes), "recv");
  void* data = nullptr;
  try {
    mpi_rules::check_message_size(detail::operation("recv"), status.MPI_SOURCE, bytes, buffer.shape());
    data = detail::side_for(buffer, Access::overwrite, "recv");
  } catch (...) {  // the message goes nowhere else: consumed, so that its sender is not left waiting
    std::string discarded(static_cast<std::size_t>(bytes), '\0');
    MPI_Recv(discarded.data(), bytes, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm, MPI_STATUS_IGNORE);
    throw;
  }
  detail::check(MPI_Recv(data, detail::count<T>(buffer, "recv"), detail::datatype<T>(), status.MPI_SOURCE,
                         status.MPI_TAG, comm, &status),
                "recv");
  return status;
}

// Starts sending dv's communication side (synced now); dv must live until the request completes.
template <class DV>
MPI_Request isend(DV& dv, int dest, int tag, MPI_Comm comm) {
  AnyDualBuffer& buffer = *dv.buffer();
  const void* data = detail::side_to_send(buffer, dest, tag, comm, "isend");
  return detail::start<typename DV::value_type>(MPI_Isend, data, buffer, dest, tag, comm, "isend");
}

// Starts receiving into dv's communication side, marked modified now: nothing may read dv until the
// request completes (MPI_Wait); a message larger than dv fails there (MPI_ERR_TRUNCATE). The source
// and tag are checked before dv is touched.
template <class DV>
MPI_Request irecv(DV& dv, int source, int tag, MPI_Comm comm) {
  AnyDualBuffer& buffer = *dv.buffer();
  detail::check_rank(source, comm, true, "irecv", "source");
  detail::check_tag(tag, comm, true, "irecv");
  void* data = detail::side_for(buffer, Access::overwrite, "irecv");
  return detail::start<typename DV::value_type>(MPI_Irecv, data, buffer, source, tag, comm, "irecv");
}

// Combines dv over every rank with `op`, in place, on every rank; the result is modified on the
// communication side (a 0-d result stays where the next kernel reads it).
template <class DV>
void allreduce(DV& dv, MPI_Op op, MPI_Comm comm) {
  using T = typename DV::value_type;
  if (detail::datatype<T>() == MPI_BYTE)
    throw std::invalid_argument("lapis::mpi::allreduce: MPI has no reduction for this element type");
  AnyDualBuffer& buffer = *dv.buffer();
  void* data = detail::side_for(buffer, Access::write, "allreduce");
  detail::check(
      MPI_Allreduce(MPI_IN_PLACE, data, detail::count<T>(buffer, "allreduce"), detail::datatype<T>(), op, comm),
      "allreduce");
}

}  // namespace lapis::mpi
