// The transfer guard's state (core/transfer_guard.hpp): the process's levels, each thread's own, and
// the judgement of each implicit copy.
#include <atomic>
#include <cstdio>
#include <string>
#include <utility>

#include "lapis/core/transfer_guard.hpp"

#include "lapis/runtime/graph.hpp"
#include "lapis/runtime/trace.hpp"
#include "static_tls.hpp"

namespace lapis {
namespace {

std::atomic<TransferGuard> process_guard{TransferGuard{}};
thread_local LAPIS_STATIC_TLS detail::ThreadTransferGuard thread_guard;
thread_local LAPIS_STATIC_TLS int explicit_scopes = 0;

std::string described(Direction direction, const std::string& label, const Shape& shape) {
  return std::string("implicit ") + direction_name(direction) + " copy of \"" + label + "\" (" + name(shape.element) +
         ", shape " + shape_text(shape) + ", " + std::to_string(shape.nbytes()) + " bytes)";
}

void trace_decision(const char* decision, Direction direction, const std::string& label, const Shape& shape) {
  if (!trace::on()) return;
  trace::Event event;
  event.kind = trace::Kind::guard;
  event.name = label;
  event.detail = std::string(direction_name(direction)) + " " + decision;
  event.dtype = name(shape.element);
  event.shape = shape_text(shape);
  event.bytes = shape.nbytes();
  event.start_us = trace::now_us();
  trace::record(std::move(event));
}

}  // namespace

TransferGuard process_transfer_guard() noexcept { return process_guard.load(); }
void set_process_transfer_guard(TransferGuard guard) noexcept { process_guard.store(guard); }
TransferGuard current_transfer_guard() noexcept { return thread_guard.set ? thread_guard.guard : process_guard.load(); }

namespace detail {

ThreadTransferGuard exchange_thread_transfer_guard(ThreadTransferGuard guard) noexcept {
  std::swap(guard, thread_guard);
  return guard;
}
void count_explicit_scope(int change) noexcept { explicit_scopes += change; }

bool guard_transfer(Direction direction, bool named, const std::string& label, const Shape& shape) {
  refuse_while_recording(label.c_str(), direction == Direction::host_to_device ? "copies from the host (an upload)"
                                                                               : "copies to the host (a download)");
  if (named || explicit_scopes > 0) return true;
  const GuardLevel level = current_transfer_guard().level(direction);
  if (level == GuardLevel::allow) return false;
  if (level == GuardLevel::disallow) refuse_if_disallowed(direction, label, shape);
  trace_decision("logged", direction, label, shape);
  std::fprintf(stderr, "lapis: transfer guard: %s\n", described(direction, label, shape).c_str());
  return false;
}

void refuse_if_disallowed(Direction direction, const std::string& label, const Shape& shape) {
  if (explicit_scopes > 0 || current_transfer_guard().level(direction) != GuardLevel::disallow) return;
  trace_decision("refused", direction, label, shape);
  throw TransferGuardError("lapis: the transfer guard refused an " + described(direction, label, shape) +
                           "; sync it explicitly (sync_host() / sync_device()) or allow it");
}

}  // namespace detail
}  // namespace lapis
