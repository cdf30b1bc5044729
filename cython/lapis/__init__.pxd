# `from lapis cimport ...` for other Cython extensions: the DualView extension type (with its raw
# access methods host_data, device_data, device_data_for_overwrite and its `buffer`, the C++
# lapis::AnyDualBuffer), the functions that make and wrap DualViews, the import check every
# extension calls once (import_lapis), and the core's types.
from lapis._core cimport (
    AnyDualBuffer, DualView, ElementType, Shape, Side, Strides, borrow_host, empty_dualview, empty_dualview_of,
    import_lapis, raise_lapis_error, wrap, write_back, zeros_dualview,
)
