# The Kokkos-free bridge to the C++ core (bridge.hpp): what the Python type is made of. Included
# into _core.pyx.


cdef extern from "lapis/runtime/host_registration.hpp" nogil:
    cdef cppclass HostBlock "lapis::detail::HostBlock":
        const void* begin
        size_t bytes
        bint kept
    size_t host_registration_min_bytes "lapis::detail::host_registration_min_bytes"
    void forget_kept_host_block "lapis::detail::forget_kept_host_block"(const void* begin)


cdef extern from "bridge.hpp" namespace "lapis::python" nogil:
    cdef enum class RuntimeFactKind "lapis::python::RuntimeFact::Kind":
        text
        names
        number
        flag
    cdef cppclass RuntimeFact "lapis::python::RuntimeFact":
        const char* key
        RuntimeFactKind kind
        string text
        uint64_t number
    void c_initialize "lapis::python::initialize"() except +raise_lapis_error
    void c_finalize "lapis::python::finalize"() except +raise_lapis_error
    vector[RuntimeFact] c_runtime_info "lapis::python::runtime_info"() except +raise_lapis_error
    size_t c_cached_arrays "lapis::python::cached_arrays"()
    bint c_sides_alias "lapis::python::sides_alias"()
    bint c_work_done_on_return "lapis::python::work_done_on_return"()
    shared_ptr[AnyDualBuffer] c_borrow "lapis::python::borrow"(
        void* data, const Shape& shape, const Strides& strides, bool writable) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_borrow "lapis::python::borrow"(
        void* data, const Shape& shape, const Strides& strides, bool writable,
        const HostBlock& block) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_borrow_memref "lapis::python::borrow_memref"(
        void* data, int64_t offset, const vector[int64_t]& sizes, const vector[int64_t]& strides,
        ElementType element) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_copy_of "lapis::python::copy_of"(
        const void* data, const Shape& shape, const Strides& strides) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_borrow_device "lapis::python::borrow_device"(
        void* data, const Shape& shape) except +raise_lapis_error
    cdef cppclass DeviceLocation "lapis::python::DeviceLocation":
        int dlpack_device_type
        int device_id
    DeviceLocation c_device_location "lapis::python::device_location"() except +raise_lapis_error
    void c_synchronize_device "lapis::python::synchronize_device"() except +raise_lapis_error
    void c_fence "lapis::python::fence"() except +raise_lapis_error
    void* c_lend_device "lapis::python::lend_device"(AnyDualBuffer& buffer, Access access) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_result "lapis::python::result"(const Shape& shape) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_zeros "lapis::python::zeros"(const Shape& shape) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_full "lapis::python::full"(
        const Shape& shape, const void* item) except +raise_lapis_error
    void c_fill "lapis::python::fill"(AnyDualBuffer& buffer, const void* item) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_converted "lapis::python::converted"(
        AnyDualBuffer& source, ElementType element, size_t itemsize) except +raise_lapis_error
    void c_sync_explicitly "lapis::python::sync_explicitly"(AnyDualBuffer& buffer, Side side) except +raise_lapis_error
    void c_start_module "lapis::python::start_module"(
        void (*initialize)() noexcept nogil, void (*finalize)() noexcept nogil) except +raise_lapis_error


cdef extern from "lapis/interop/python_api.hpp":
    int LAPIS_ABI_VERSION
    int LAPIS_C_API_FEATURE_VERSION
