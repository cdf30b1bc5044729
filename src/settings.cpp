#include "settings.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

#include <unistd.h>

#include "lapis/runtime/spaces.hpp"

namespace lapis::detail {
namespace {

const char* value_of(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr || *value == '\0' ? nullptr : value;
}

[[noreturn]] void refuse(const char* name, const char* value, const std::string& accepted) {
  throw std::invalid_argument(std::string("lapis: ") + name + "='" + value + "': expected " + accepted);
}

// A whole number in [low, high] (digits only: no sign, no spaces, no suffix), or `otherwise` unset.
std::size_t number(const char* name, std::size_t otherwise, std::size_t low, std::size_t high) {
  const char* value = value_of(name);
  if (value == nullptr) return otherwise;
  const std::string accepted = "a whole number from " + std::to_string(low) + " to " + std::to_string(high);
  for (const char* c = value; *c; ++c)
    if (*c < '0' || *c > '9') refuse(name, value, accepted);
  errno = 0;
  const unsigned long long parsed = std::strtoull(value, nullptr, 10);
  if (errno == ERANGE || parsed < low || parsed > high) refuse(name, value, accepted);
  return static_cast<std::size_t>(parsed);
}

bool flag(const char* name, bool otherwise) {
  const char* value = value_of(name);
  if (value == nullptr) return otherwise;
  const std::string text = value;
  if (text != "0" && text != "1") refuse(name, value, "0 or 1");
  return text == "1";
}

// A quarter of the machine's memory: the default cap on page-locked borrowed memory, which the
// kernel can no longer swap out or move (1 GiB where the figure cannot be read).
std::size_t quarter_of_memory() noexcept {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::size_t{1} << 30;
  return static_cast<std::size_t>(pages) / 4 * static_cast<std::size_t>(page);
}

// What every setting is when its variable is unset.
Settings defaults() noexcept {
  // Staging pays where the device's memory is apart from host memory (a GPU): from 4 MiB there
  // (docs/guide/memory.md, "Staged copies", has the measurements behind it); off where device
  // memory is host memory, unless set (the simulated device exercises it then).
  constexpr bool device_apart = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, DefaultDevice::memory_space>::accessible;
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  return {false,
          true,
          false,
          false,
          64,
          quarter_of_memory(),
          {device_apart ? std::size_t{4} << 20 : 0, std::size_t{16} << 20, std::min(8u, hardware)}};
}

Settings parse() {
  Settings parsed = defaults();
  if (const char* device = value_of("LAPIS_DEVICE")) {
    const std::string text = device;
    if (text != "default" && text != "simulated") refuse("LAPIS_DEVICE", device, "'default' or 'simulated'");
    if (text == "simulated" && !std::is_same_v<DefaultDevice::memory_space, Kokkos::HostSpace>)
      refuse("LAPIS_DEVICE", device,
             std::string("'default' on this build: the simulated device needs a build whose device memory is host "
                         "memory, and this build's is ") +
                 DefaultDevice::memory_space::name());
    parsed.simulated_device = text == "simulated";
  }
  parsed.pool = flag("LAPIS_POOL", parsed.pool);
  parsed.pool_poison = flag("LAPIS_POOL_POISON", parsed.pool_poison);
  parsed.mpi_gpu_aware = flag("LAPIS_MPI_GPU_AWARE", parsed.mpi_gpu_aware);
  parsed.cached_arrays = number("LAPIS_CACHED_ARRAYS", parsed.cached_arrays, 0, 4096);
  parsed.register_max_bytes = number("LAPIS_REGISTER_MAX_BYTES", parsed.register_max_bytes, 0, std::size_t{1} << 50);
  constexpr std::size_t most = std::numeric_limits<std::size_t>::max();
  auto& staging = parsed.staging;
  staging.min_bytes = number("LAPIS_STAGING_MIN_BYTES", staging.min_bytes, 0, most);
  staging.chunk_bytes = number("LAPIS_STAGING_CHUNK_BYTES", staging.chunk_bytes, 1, std::size_t{1} << 40);
  staging.threads = static_cast<unsigned>(number("LAPIS_STAGING_THREADS", staging.threads, 1, 64));
  return parsed;
}

struct Parsed {
  Settings settings;
  std::exception_ptr error;
};

const Parsed& parsed() {
  static const Parsed once = [] {
    Parsed result;
    try {
      result.settings = parse();
    } catch (...) {
      result.error = std::current_exception();
    }
    return result;
  }();
  return once;
}

}  // namespace

const Settings& settings() {
  if (parsed().error) std::rethrow_exception(parsed().error);
  return parsed().settings;
}

const Settings& settings_or_defaults() noexcept {
  static const Settings unset = defaults();
  return parsed().error ? unset : parsed().settings;
}

}  // namespace lapis::detail
