// Resident entry points of a LAPIS module, derived from its functions' C++ types: for each function f
// the emitter declares, one line
//     LAPIS_RESIDENT(f)
// defines `extern "C" int dv_f(void* const* results, void* const* params)`, and one line after them
//     LAPIS_SIGNATURES(LAPIS_SIGNATURE(f), LAPIS_SIGNATURE(g), ...)
// defines `extern "C" const char* lapis_signatures()`, the JSON that lapis.lapis_module reads. Nothing
// about a parameter is written by hand: its kind, element type and static extents come from its type.
// `python -m lapis build` appends these lines to the emitter's output (docs/lapis.md).
//
// The C side of a call (lapis/lapis_module.py is its one caller): params[i] is
//   - a DualView parameter's lapis_buffer_ref* (the reference stays the caller's);
//   - a pointer to a scalar parameter's value;
//   - a pointer to a struct parameter's members, laid out flat (LAPIS passes structs so);
//   - a pointer parameter's value itself;
// results[i] points to where result i goes: a new lapis_buffer_ref* for the caller to own, or the
// scalar's value. The entry point returns 0, or -1 with the exception kept for the calling thread
// (lapis::detail::take_kept_error; Python's loader raises it).
//
// A type lapis cannot pass is no compile error: its signature entry is {"unsupported": "<C++ type>"},
// so that the build tool refuses the module naming the function, the parameter and the type, and a
// dv_ entry point that is called anyway throws std::invalid_argument.
#pragma once

#include <cxxabi.h>

#include <array>
#include <cstddef>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "lapis/core/buffer_ref.hpp"
#include "lapis/core/element_type.hpp"
#include "lapis/core/errors.hpp"
#include "lapis/dualview.hpp"

namespace LAPIS {

template <class DataType, class Layout>
class DualView;

namespace resident {

template <class T>
std::string type_name() {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(T).name(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && name ? name.get() : typeid(T).name();
}

template <class T>
constexpr bool is_scalar_v = std::is_arithmetic_v<T> && lapis::element_type_v<T> != lapis::ElementType::opaque;

template <class T>
std::string dtype_name() {
  return lapis::element_types[static_cast<int>(lapis::element_type_v<T>)].name;
}

// A view data type's extents in Kokkos's order (run-time extents first): `double*[4]` is [null, 4].
template <class Data>
struct Extents {
  using element = Data;
  static std::string list() { return ""; }
};
template <class Data>
struct Extents<Data*> {
  using element = typename Extents<Data>::element;
  static std::string list() { return join(Extents<Data>::list(), "null"); }
  static std::string join(const std::string& inner, const std::string& extent) {
    return inner.empty() ? extent : inner + ", " + extent;
  }
};
template <class Data, std::size_t N>
struct Extents<Data[N]> {
  using element = typename Extents<Data>::element;
  static std::string list() { return Extents<Data*>::join(Extents<Data>::list(), std::to_string(N)); }
};

// An emitted struct (StructN: members m0, m1, ... of one element type, scalars or std::arrays of
// them) as {"struct": dtype, "count": n}, n its scalars in order. Its members are found by the names
// the emitter gives them, up to 16 of them.
template <class T>
struct Flat {
  static constexpr bool valid = is_scalar_v<T>;
  using element = T;
  static constexpr std::size_t count = 1;
};
template <class T, std::size_t N>
struct Flat<std::array<T, N>> {
  static constexpr bool valid = Flat<T>::valid;
  using element = typename Flat<T>::element;
  static constexpr std::size_t count = N * Flat<T>::count;
};

#define LAPIS_RESIDENT_MEMBER_TRAIT(i)                                                         \
  template <class S, class = void>                                                             \
  struct Member##i {                                                                           \
    static constexpr bool present = false;                                                     \
    using type = void;                                                                         \
  };                                                                                           \
  template <class S>                                                                           \
  struct Member##i<S, std::void_t<decltype(std::declval<S&>().m##i)>> {                        \
    static constexpr bool present = true;                                                      \
    using type = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<S&>().m##i)>>; \
  };
LAPIS_RESIDENT_MEMBER_TRAIT(0)
LAPIS_RESIDENT_MEMBER_TRAIT(1)
LAPIS_RESIDENT_MEMBER_TRAIT(2)
LAPIS_RESIDENT_MEMBER_TRAIT(3)
LAPIS_RESIDENT_MEMBER_TRAIT(4)
LAPIS_RESIDENT_MEMBER_TRAIT(5)
LAPIS_RESIDENT_MEMBER_TRAIT(6)
LAPIS_RESIDENT_MEMBER_TRAIT(7)
LAPIS_RESIDENT_MEMBER_TRAIT(8)
LAPIS_RESIDENT_MEMBER_TRAIT(9)
LAPIS_RESIDENT_MEMBER_TRAIT(10)
LAPIS_RESIDENT_MEMBER_TRAIT(11)
LAPIS_RESIDENT_MEMBER_TRAIT(12)
LAPIS_RESIDENT_MEMBER_TRAIT(13)
LAPIS_RESIDENT_MEMBER_TRAIT(14)
LAPIS_RESIDENT_MEMBER_TRAIT(15)
#undef LAPIS_RESIDENT_MEMBER_TRAIT

template <class... Members>
struct FlatMembers {
  using first = std::tuple_element_t<0, std::tuple<Members...>>;
  using element = typename Flat<first>::element;
  static constexpr std::size_t count = (Flat<Members>::count + ...);
  static constexpr bool valid =
      ((Flat<Members>::valid && std::is_same_v<typename Flat<Members>::element, element>) && ...);
};

// m0 .. m(n-1) present, m(n) absent: the struct's members, in order.
template <class S>
struct EmittedStruct {
  static constexpr std::size_t members = !Member0<S>::present    ? 0
                                         : !Member1<S>::present  ? 1
                                         : !Member2<S>::present  ? 2
                                         : !Member3<S>::present  ? 3
                                         : !Member4<S>::present  ? 4
                                         : !Member5<S>::present  ? 5
                                         : !Member6<S>::present  ? 6
                                         : !Member7<S>::present  ? 7
                                         : !Member8<S>::present  ? 8
                                         : !Member9<S>::present  ? 9
                                         : !Member10<S>::present ? 10
                                         : !Member11<S>::present ? 11
                                         : !Member12<S>::present ? 12
                                         : !Member13<S>::present ? 13
                                         : !Member14<S>::present ? 14
                                         : !Member15<S>::present ? 15
                                                                 : 16;
  template <std::size_t... I>
  static auto layout(std::index_sequence<I...>) -> FlatMembers<typename std::tuple_element_t<
      I, std::tuple<Member0<S>, Member1<S>, Member2<S>, Member3<S>, Member4<S>, Member5<S>, Member6<S>, Member7<S>,
                    Member8<S>, Member9<S>, Member10<S>, Member11<S>, Member12<S>, Member13<S>, Member14<S>,
                    Member15<S>>>::type...>;
  static constexpr bool valid = [] {
    if constexpr (!std::is_class_v<S> || members == 0 || members == 16 || !std::is_standard_layout_v<S>) {
      return false;
    } else {
      using Layout = decltype(layout(std::make_index_sequence<members>{}));
      return Layout::valid && sizeof(S) == Layout::count * sizeof(typename Layout::element);
    }
  }();
};

// What a parameter or result of type T is for Python (Kind), its signature entry, and how it
// crosses the C side of a call.
enum class Kind { dualview, scalar, structure, pointer, unsupported };

template <class T>
struct Role {
  static constexpr Kind kind = is_scalar_v<T>            ? Kind::scalar
                               : std::is_pointer_v<T>    ? Kind::pointer
                               : EmittedStruct<T>::valid ? Kind::structure
                                                         : Kind::unsupported;
};
template <class Data, class Layout>
struct Role<DualView<Data, Layout>> {
  static constexpr Kind kind = is_scalar_v<typename Extents<Data>::element> ? Kind::dualview : Kind::unsupported;
};

template <class Data, class Layout>
std::string dualview_entry(DualView<Data, Layout>*) {
  return R"({"memref": ")" + dtype_name<typename Extents<Data>::element>() + R"(", "shape": [)" +
         Extents<Data>::list() + "]}";
}

template <class T>
std::string entry() {
  constexpr Kind kind = Role<T>::kind;
  if constexpr (kind == Kind::scalar) {
    return R"({"scalar": ")" + dtype_name<T>() + R"("})";
  } else if constexpr (kind == Kind::pointer) {
    return R"({"pointer": true})";
  } else if constexpr (kind == Kind::structure) {
    using Layout = decltype(EmittedStruct<T>::layout(std::make_index_sequence<EmittedStruct<T>::members>{}));
    return R"({"struct": ")" + dtype_name<typename Layout::element>() + R"(", "count": )" +
           std::to_string(Layout::count) + "}";
  } else if constexpr (kind == Kind::dualview) {
    return dualview_entry(static_cast<T*>(nullptr));
  } else {
    return R"({"unsupported": ")" + type_name<T>() + R"("})";
  }
}

template <class T>
using Plain = std::remove_cv_t<std::remove_reference_t<T>>;

template <class T, class Value>
void store_one(Value&& value, void* result) {
  constexpr Kind kind = Role<T>::kind;
  if constexpr (kind == Kind::dualview) {
    *static_cast<lapis_buffer_ref**>(result) = lapis::new_ref(T(std::forward<Value>(value)).buffer());
  } else if constexpr (kind == Kind::scalar || kind == Kind::pointer) {
    *static_cast<T*>(result) = value;
  } else {
    throw std::invalid_argument("a LAPIS module result of type " + type_name<T>() + " cannot be handed to Python");
  }
}

// The function's results as a list: none, one, or a std::tuple's elements.
template <class R>
struct Results {
  static std::string list() { return entry<R>(); }
  template <class Value>
  static void store(Value&& value, void* const* results) {
    store_one<R>(std::forward<Value>(value), results[0]);
  }
};
template <>
struct Results<void> {
  static std::string list() { return ""; }
};
template <class... R>
struct Results<std::tuple<R...>> {
  static std::string list() {
    std::string text;
    ((text += (text.empty() ? "" : ", ") + entry<R>()), ...);
    return text;
  }
  static void store(std::tuple<R...>&& values, void* const* results) {
    store_each(std::move(values), results, std::index_sequence_for<R...>{});
  }
  template <std::size_t... I>
  static void store_each(std::tuple<R...>&& values, void* const* results, std::index_sequence<I...>) {
    (store_one<R>(std::get<I>(std::move(values)), results[I]), ...);
  }
};

template <class P>
Plain<P> argument(void* param) {
  using T = Plain<P>;
  constexpr Kind kind = Role<T>::kind;
  if constexpr (kind == Kind::dualview) {
    if (param == nullptr) throw std::invalid_argument("a null lapis_buffer_ref handle");
    return T(lapis::buffer_of(static_cast<const lapis_buffer_ref*>(param)));
  } else if constexpr (kind == Kind::scalar || kind == Kind::structure) {
    return *static_cast<const T*>(param);
  } else if constexpr (kind == Kind::pointer) {
    return static_cast<T>(param);
  } else {
    throw std::invalid_argument("a LAPIS module parameter of type " + type_name<T>() + " cannot be passed from Python");
  }
}

template <class Function>
struct Signature;
template <class R, class... P>
struct Signature<R (*)(P...)> {
  static constexpr std::size_t arity = sizeof...(P);
  static std::string json() {
    std::string params;
    ((params += (params.empty() ? "" : ", ") + entry<Plain<P>>()), ...);
    return R"({"params": [)" + params + R"(], "results": [)" + Results<Plain<R>>::list() + "]}";
  }
  template <auto F, std::size_t... I>
  static void call(void* const* results, void* const* params, std::index_sequence<I...>) {
    if constexpr (std::is_void_v<R>) {
      F(argument<P>(params[I])...);
    } else {
      Results<Plain<R>>::store(F(argument<P>(params[I])...), results);
    }
  }
};

// The body of dv_<f>: 0, or -1 with the exception kept for the caller's thread.
template <auto F>
int call(void* const* results, void* const* params) noexcept {
  try {
    using S = Signature<decltype(F)>;
    S::template call<F>(results, params, std::make_index_sequence<S::arity>{});
    return 0;
  } catch (...) {
    lapis::detail::keep_current_error();
    return -1;
  }
}

template <auto F>
std::string named_signature(const char* name) {
  return "\"" + std::string(name) + "\": " + Signature<decltype(F)>::json();
}

inline std::string signatures(std::initializer_list<std::string> named) {
  std::string text;
  for (const auto& one : named) text += (text.empty() ? "" : ", ") + one;
  return "{" + text + "}";
}

}  // namespace resident
}  // namespace LAPIS

#define LAPIS_RESIDENT(f)                                            \
  extern "C" int dv_##f(void* const* results, void* const* params) { \
    return ::LAPIS::resident::call<&f>(results, params);             \
  }
#define LAPIS_SIGNATURE(f) ::LAPIS::resident::named_signature<&f>(#f)
#define LAPIS_SIGNATURES(...)                                                     \
  extern "C" const char* lapis_signatures() {                                     \
    static const std::string json = ::LAPIS::resident::signatures({__VA_ARGS__}); \
    return json.c_str();                                                          \
  }
