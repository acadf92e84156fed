#ifndef MALLOC_COUNTER_H
#define MALLOC_COUNTER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Number of heap allocations made by this process so far: successful calls to
/// malloc, calloc, realloc (with a non-zero size), posix_memalign, aligned_alloc,
/// memalign, valloc, pvalloc and reallocarray. Zero where interposition is unsupported.
uint64_t malloc_counter_allocations(void);

/// Number of calls to free with a non-NULL pointer.
uint64_t malloc_counter_frees(void);

/// 1 if this build interposes the allocator (glibc), 0 otherwise.
int malloc_counter_is_active(void);

#ifdef __cplusplus
}
#endif

#endif
