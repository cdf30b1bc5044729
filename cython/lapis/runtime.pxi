# The runtime's Python face: what it runs on, the memory it holds, fence and finalize. Included into
# _core.pyx.


def runtime_info():
    """What lapis runs on, and how much memory it holds now."""
    info = {"c_api_feature_version": LAPIS_C_API_FEATURE_VERSION}
    for fact in c_runtime_info():
        *within, key = fact.key.decode().split(".")
        entries = info
        for name in within:
            entries = entries.setdefault(name, {})
        if fact.kind == RuntimeFactKind.text:
            entries[key] = fact.text.decode()
        elif fact.kind == RuntimeFactKind.names:
            entries[key] = fact.text.decode().split(",")
        elif fact.kind == RuntimeFactKind.number:
            entries[key] = fact.number
        else:
            entries[key] = fact.number != 0
    return info


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


cdef extern from "lapis/runtime/host_registration.hpp" namespace "lapis" nogil:
    ctypedef struct CHostRegistrationStats "lapis::HostRegistrationStats":
        size_t held
        size_t held_bytes
        size_t made
        size_t released
        size_t refused
    CHostRegistrationStats c_host_registration_stats "lapis::host_registration_stats"()
    size_t c_release_idle_host_registrations "lapis::release_idle_host_registrations"()


def host_registrations():
    """Host memory registered (page-locked) with the device's driver for copies at the pinned rate
    (docs/guide/memory.md): held and held_bytes (now), made, released, and refused (copies that
    asked for a registration and went the pageable way: the cap, an overlap, the driver)."""
    return dict(c_host_registration_stats())


def empty_cache():
    """Drops the numpy arrays' wrappings kept for later calls and the host memory registrations no
    DualView uses (numpy may resize those arrays in place again), then gives every cached block back
    to its memory space; returns the bytes freed."""
    drop_idle_wrappings()
    forget_block_owners()
    cdef size_t freed
    with nogil:
        c_release_idle_host_registrations()
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
    drop_idle_wrappings()
    c_finalize()
