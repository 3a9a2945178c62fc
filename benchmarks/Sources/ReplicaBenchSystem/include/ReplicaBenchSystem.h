// What ReplicaBench needs from the C library that Swift's Glibc module does not export: malloc_trim,
// to tell the memory a replica keeps from the memory its open freed but glibc has not returned yet.
#pragma once

#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
static inline int replica_bench_malloc_trim(void) { return malloc_trim(0); }
#else
static inline int replica_bench_malloc_trim(void) { return 0; }
#endif
