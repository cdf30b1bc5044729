// Every setting lapis reads from the environment, parsed in one place, once, and strictly: a value
// that is not one the setting takes is an error naming the variable and what it accepts, raised by
// lapis::initialize (so `import lapis` fails with ValueError) instead of being taken for something
// else. Internal to lapis's runtime library.
#pragma once

#include <cstddef>

#include "lapis/runtime/staging.hpp"

namespace lapis::detail {

// Each value's default is the one of settings.cpp's defaults(), what an unset variable gives.
struct Settings {
  bool simulated_device;           // LAPIS_DEVICE: "default" or "simulated"
  bool pool;                       // LAPIS_POOL: 1 or 0
  bool pool_poison;                // LAPIS_POOL_POISON: 0 or 1
  bool mpi_gpu_aware;              // LAPIS_MPI_GPU_AWARE: 0 or 1
  std::size_t cached_arrays;       // LAPIS_CACHED_ARRAYS: 0 to 4096
  std::size_t register_max_bytes;  // LAPIS_REGISTER_MAX_BYTES: 0 to 2^50
  StagingSettings staging;         // LAPIS_STAGING_MIN_BYTES, _CHUNK_BYTES, _THREADS
};

// The settings as the environment gives them; throws std::invalid_argument for a bad value. Parsed
// on the first call; later calls give the same result (or throw the same error).
const Settings& settings();

// The same for code that must not throw: the defaults where the environment is bad (lapis::initialize
// has refused to start then, so nothing runs on them).
const Settings& settings_or_defaults() noexcept;

}  // namespace lapis::detail
