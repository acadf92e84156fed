// Heap allocation counter.
//
// On glibc, this file defines malloc and friends. Because it is linked into the
// executable, the dynamic linker resolves every shared library's calls to these
// functions (libswiftCore's swift_slowAlloc included) to the definitions below,
// which bump a counter and forward to glibc's own allocator through its exported
// __libc_* entry points. glibc documents this kind of replacement as supported.
//
// Elsewhere the counter is inert and reports zero.

#define _GNU_SOURCE 1
#include "MallocCounter.h"

#if defined(__linux__) && defined(__GLIBC__)

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

static _Atomic uint64_t allocations = 0;
static _Atomic uint64_t frees = 0;

#define EXPORT __attribute__((visibility("default")))

static inline void *counted(void *p) {
  if (p != NULL) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  }
  return p;
}

EXPORT void *malloc(size_t size) { return counted(__libc_malloc(size)); }

EXPORT void *calloc(size_t count, size_t size) { return counted(__libc_calloc(count, size)); }

EXPORT void *realloc(void *ptr, size_t size) {
  void *p = __libc_realloc(ptr, size);
  // realloc(p, 0) frees; anything else may have moved the block, so count it.
  if (size == 0) {
    if (ptr != NULL) atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    return p;
  }
  return counted(p);
}

EXPORT void *reallocarray(void *ptr, size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  return realloc(ptr, total);
}

EXPORT void free(void *ptr) {
  if (ptr != NULL) {
    atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
  }
  __libc_free(ptr);
}

EXPORT int posix_memalign(void **out, size_t alignment, size_t size) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment % sizeof(void *) != 0) {
    return EINVAL;
  }
  void *p = __libc_memalign(alignment, size);
  if (p == NULL) return ENOMEM;
  *out = counted(p);
  return 0;
}

EXPORT void *aligned_alloc(size_t alignment, size_t size) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    errno = EINVAL;
    return NULL;
  }
  return counted(__libc_memalign(alignment, size));
}

EXPORT void *memalign(size_t alignment, size_t size) { return counted(__libc_memalign(alignment, size)); }

EXPORT void *valloc(size_t size) { return counted(__libc_valloc(size)); }

EXPORT void *pvalloc(size_t size) { return counted(__libc_pvalloc(size)); }

uint64_t malloc_counter_allocations(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }

uint64_t malloc_counter_frees(void) { return atomic_load_explicit(&frees, memory_order_relaxed); }

int malloc_counter_is_active(void) { return 1; }

#else

uint64_t malloc_counter_allocations(void) { return 0; }

uint64_t malloc_counter_frees(void) { return 0; }

int malloc_counter_is_active(void) { return 0; }

#endif
