"""Kokkos kernels on DualViews: every array argument may be a numpy array or a lapis.DualView.

With out=None the result is a new DualView that stays on the device until read. With out given,
the function returns out: a numpy out holds the result when the call returns (one device->host
copy where the sides are apart, and no upload of its old contents); a DualView out gets its device
side overwritten and marked modified (nothing transferred). Bad input raises before anything is
written: ValueError for shapes, read-only or overlapping outputs and bad sparse structure,
TypeError for unsupported or mixed dtypes (float32 or float64; sparse indices int32 or int64).
"""

from lapis._core import batched_gemm, dot, gemm, matadd, maxpool_nchw, spmm_dcsr, spmv

__all__ = ["batched_gemm", "dot", "gemm", "matadd", "maxpool_nchw", "spmm_dcsr", "spmv"]
