// Per-thread state in lapis's runtime library is a few bytes of static TLS: dynamic TLS of a
// dlopen'ed library is malloc'ed per thread and freed by whichever thread reuses a dead thread's
// stack, a free that ThreadSanitizer cannot order after the dead thread's writes.
#pragma once

#if defined(__GNUC__) && !defined(__CUDACC__)
#define LAPIS_STATIC_TLS __attribute__((tls_model("initial-exec")))
#else
#define LAPIS_STATIC_TLS
#endif
