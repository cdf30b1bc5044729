"""Copies of numpy arrays (pageable host memory) to and from the device, measured from Python at
several sizes: a lapis DualView borrowing the array synced each way, the same with a new DualView of
the array at every call (as a LAPIS program makes), and the first copy of a new array (the one that
registers its memory with the driver, docs/guide/memory.md); beside them, where a GPU and the
libraries are there, the driver's own cudaMemcpy on a copy of the array and on pinned memory (through
CuPy's runtime binding), torch's Tensor.copy_ and CuPy's set/get. Also a no-alloc
lapis.kernels.matadd from numpy into numpy of 8 MB arrays (two uploads, one download) beside torch and
CuPy doing the same.

Every copy is finished when the call returns (the GPU libraries' calls are followed by a
synchronization). Timed in turns, best round; a first copy is the median of 5 new arrays. With
--compare-unregistered it runs itself again with LAPIS_REGISTER_MAX_BYTES=0 (nothing registered:
large copies staged through pinned buffers, the others the driver's pageable path) and reports
lapis's figures from both. Prints JSON: microseconds per call, and GB/s for the copies."""
import json
import sys
import time

import numpy

import lapis
import lapis.kernels as K
from python_overhead import device_name, lapis_figures_with, timed_in_turns

SIZES = {"64KiB": 64 << 10, "256KiB": 256 << 10, "1MiB": 1 << 20, "16MiB": 16 << 20, "256MiB": 256 << 20}
ROUNDS = 5
FIRST_COPIES = 5
MATADD_ELEMENTS = 1 << 20  # 8 MB of float64 per array


def calls_for(nbytes):
    """Calls per round: about 64 MiB moved, at least 3 calls, at most 200."""
    return max(3, min(200, (64 << 20) // nbytes))


def lapis_copies(host):
    """The array's copies through one DualView kept from call to call, and through a new DualView
    at every call: uploads by a sync, downloads as a kernel's numpy `out` (a kernel call with a
    resident `out` beside it, to take its own time out)."""
    dv = lapis.DualView(host)  # borrows the array: its host side is the array's pageable memory
    values = host.view(numpy.float64)
    resident, into = lapis.DualView(values.copy()), lapis.zeros(values.shape)
    resident.sync_device()

    def upload():
        dv.modify_host()
        dv.sync_device()

    def download():
        dv.modify_device()
        dv.sync_host()
    return {"lapis_upload": upload, "lapis_download": download,
            "lapis_new_upload": lambda: lapis.DualView(host).sync_device(),
            "lapis_new_download": lambda: K.add(resident, 0.0, out=values),
            "lapis_new_kernel_alone": lambda: (K.add(resident, 0.0, out=into), lapis.fence())}


def first_copies(nbytes):
    """Microseconds of the first upload of a new array and of the first download into one (memory
    touched before: numpy's pages exist, as a program's would), the median of FIRST_COPIES."""
    def median(copy):
        times = []
        for _ in range(FIRST_COPIES):
            array = numpy.ones(nbytes // 8)
            start = time.perf_counter()
            copy(array)
            lapis.fence()
            times.append(1e6 * (time.perf_counter() - start))
        return sorted(times)[FIRST_COPIES // 2]
    resident, into = lapis.ones(nbytes // 8), lapis.zeros(nbytes // 8)
    resident.sync_device()
    kernel = median(lambda array: K.add(resident, 0.0, out=into))
    return {"lapis_first_upload": median(lambda array: lapis.DualView(array).sync_device()),
            "lapis_first_download": median(lambda array: K.add(resident, 0.0, out=array)) - kernel}


def gpu_copies(host):
    """The same copies by the driver and the other libraries, of an array of their own (lapis's
    registration of `host` would make them pinned copies too)."""
    host = host.copy()
    candidates = {}
    try:
        import cupy
        device = cupy.empty(host.shape, host.dtype)
        pointer, nbytes, runtime = host.ctypes.data, host.nbytes, cupy.cuda.runtime
        candidates["cuda_memcpy_upload"] = lambda: runtime.memcpy(device.data.ptr, pointer, nbytes,
                                                                  runtime.memcpyHostToDevice)
        candidates["cuda_memcpy_download"] = lambda: runtime.memcpy(pointer, device.data.ptr, nbytes,
                                                                    runtime.memcpyDeviceToHost)
        pinned = cupy.cuda.alloc_pinned_memory(nbytes)
        candidates["cuda_memcpy_pinned_upload"] = lambda: runtime.memcpy(device.data.ptr, pinned.ptr, nbytes,
                                                                         runtime.memcpyHostToDevice)
        candidates["cuda_memcpy_pinned_download"] = lambda: runtime.memcpy(pinned.ptr, device.data.ptr, nbytes,
                                                                           runtime.memcpyDeviceToHost)
        stream = cupy.cuda.get_current_stream()
        candidates["cupy_upload"] = lambda: (device.set(host), stream.synchronize())
        candidates["cupy_download"] = lambda: (device.get(out=host), stream.synchronize())
    except ImportError:
        pass
    try:
        import torch
        on_host, on_device = torch.from_numpy(host), torch.empty(host.shape, dtype=torch.uint8, device="cuda")
        candidates["torch_upload"] = lambda: (on_device.copy_(on_host), torch.cuda.synchronize())
        candidates["torch_download"] = lambda: (on_host.copy_(on_device), torch.cuda.synchronize())
    except ImportError:
        pass
    return candidates


def matadd_candidates(on_gpu):
    a, b, c = (numpy.random.default_rng(seed).random(MATADD_ELEMENTS) for seed in range(3))
    candidates = {"lapis_matadd_numpy_8MB": lambda: K.matadd(a, b, out=c)}
    if not on_gpu:
        return candidates
    try:
        import torch
        ta, tb, tc = (torch.from_numpy(x) for x in (a, b, c))
        candidates["torch_matadd_numpy_8MB"] = lambda: tc.copy_(torch.add(ta.cuda(), tb.cuda()))
    except ImportError:
        pass
    try:
        import cupy
        candidates["cupy_matadd_numpy_8MB"] = lambda: cupy.add(cupy.asarray(a), cupy.asarray(b)).get(out=c)
    except ImportError:
        pass
    return candidates


def main():
    on_gpu = lapis.DualView(numpy.zeros(1)).__dlpack_device__()[0] == 2
    figures = {}
    for name, nbytes in SIZES.items():
        host = numpy.ones(nbytes, numpy.uint8)
        candidates = {**lapis_copies(host), **(gpu_copies(host) if on_gpu else {})}
        timed = timed_in_turns(candidates, calls_for(nbytes), ROUNDS, warm_up_seconds=0)
        kernel_alone = timed.pop("lapis_new_kernel_alone")
        timed["lapis_new_download"] -= kernel_alone
        timed.update(first_copies(nbytes))
        for key, us in timed.items():
            figures[f"{key}_{name}_us"] = us
            figures[f"{key}_{name}_GBps"] = nbytes / us / 1e3
        del host, candidates
        lapis.empty_cache()  # this size's registrations and pooled blocks go before the next size's
    matadd = timed_in_turns(matadd_candidates(on_gpu), 20, ROUNDS, warm_up_seconds=0)
    figures.update({f"{key}_us": us for key, us in matadd.items()})
    figures["staging"] = lapis.runtime_info()["staging"]
    figures["registrations"] = lapis.host_registrations()
    figures["device"] = device_name()
    if "--compare-unregistered" in sys.argv:
        figures["unregistered"] = lapis_figures_with(__file__, LAPIS_REGISTER_MAX_BYTES="0")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
