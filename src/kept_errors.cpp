// Errors kept for C interfaces (core/errors.hpp): one per thread, until taken.
#include <string>
#include <utility>

#include "lapis/core/errors.hpp"

namespace lapis::detail {
namespace {

struct KeptError {
  bool kept = false;
  ErrorKind kind = ErrorKind::runtime;
  std::string message;
};

// Dynamic TLS is fine here: only threads that call a resident entry point ever touch it.
KeptError& kept() {
  thread_local KeptError error;
  return error;
}

}  // namespace

void keep_current_error() noexcept {
  KeptError& error = kept();
  try {
    error.kind = classify_current_exception(error.message);
    error.kept = true;
  } catch (...) {  // no memory for the message: the kind alone
    error.kind = ErrorKind::memory;
    error.kept = true;
  }
}

ErrorKind take_kept_error(std::string& message) {
  KeptError& error = kept();
  if (!error.kept) {
    message.clear();
    return ErrorKind::runtime;
  }
  error.kept = false;
  message = std::move(error.message);
  return error.kind;
}

}  // namespace lapis::detail
