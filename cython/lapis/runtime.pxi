# The runtime's Python face: what it runs on, the memory it holds, fence and finalize. Included into
# _core.pyx.


def runtime_info():
    """What lapis runs on, and how much memory it holds now."""
    cdef RuntimeInfo info = c_runtime_info()
    return {
        "lapis_version": info.lapis_version.decode(),
        "abi_version": info.abi_version,
        "c_api_feature_version": LAPIS_C_API_FEATURE_VERSION,
        "kokkos_version": info.kokkos_version.decode(),
        "kokkos_backends": info.kokkos_backends.decode().split(","),
        "kokkos_prefix": info.kokkos_prefix.decode(),
        "kokkos_cuda_arch": info.kokkos_cuda_arch.decode(),
        "execution_space": info.execution_space.decode(),
        "device_memory_space": info.device_memory_space.decode(),
        "host_memory_space": info.host_memory_space.decode(),
        "simulated_device": info.simulated_device,
        "sides_alias": info.sides_alias,
        "device_id": info.device_id,
        "mpi_gpu_aware": info.mpi_gpu_aware,
        "live_allocations": info.live_allocations,
        "live_bytes": info.live_bytes,
        "staging": {"min_bytes": info.staging_min_bytes, "chunk_bytes": info.staging_chunk_bytes,
                    "threads": info.staging_threads},
    }


cdef extern from "lapis/runtime/block_pool.hpp" namespace "lapis" nogil:
    ctypedef struct CPoolStats "lapis::PoolStats":
        size_t in_use_bytes
        size_t cached_bytes
        size_t cached_blocks
        size_t allocated
        size_t reused
        size_t freed
    map[string, CPoolStats] c_pool_stats "lapis::pool_stats"() except +raise_lapis_error
    size_t c_empty_cache "lapis::empty_cache"()


def memory_stats():
    """lapis's caching allocator, per memory space (Kokkos's name for it): in_use_bytes (the
    capacity of the blocks DualViews hold now), cached_bytes and cached_blocks (freed by lapis and
    kept for reuse), and the counts of blocks allocated from the memory space, requests reused
    from the cache and blocks freed to the memory space. runtime_info()'s live_bytes counts what
    DualViews hold, cached memory not included."""
    return {space.decode(): dict(stats) for space, stats in c_pool_stats()}


def empty_cache():
    """Gives every cached block back to its memory space; returns the bytes freed."""
    cdef size_t freed
    with nogil:
        freed = c_empty_cache()
    return freed


def fence():
    """Waits until every kernel and copy lapis has queued is done. A kernel call returns once its
    work is queued on the device; lapis orders everything it does later (kernels, syncs,
    asnumpy(), exports) after it, so only timing code needs this."""
    with nogil:
        c_fence()


def finalize():
    """Releases the Kokkos memory of every DualView still alive and finalizes Kokkos (if lapis
    initialized it). Any later use of a DualView or kernel raises RuntimeFinalizedError; numpy
    arrays exported earlier stay valid (host memory does not depend on Kokkos). Idempotent;
    called at interpreter exit."""
    c_finalize()
