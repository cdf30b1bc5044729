// Marks what lapis's runtime library (liblapis-runtime.so) exports. Process-wide state lives in
// that one shared object, so that every module of a process (lapis's own extensions, other
// Cython or C++ extensions, plain programs) sees the same runtime, counters and locks: an inline
// static in a header would be duplicated in each module built with hidden visibility.
#pragma once

#define LAPIS_RUNTIME_API __attribute__((visibility("default")))
