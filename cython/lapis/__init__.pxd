# `from lapis cimport ...` for other Cython extensions: the DualView extension type (with its raw
# access methods host_data, device_data, device_data_for_overwrite and its `buffer`, the C++
# lapis::AnyDualBuffer), the functions that make DualViews, and the core's types.
from lapis._core cimport AnyDualBuffer, DualView, Shape, Side, Strides, borrow_host, new_dualview
