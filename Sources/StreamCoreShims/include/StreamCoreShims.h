// The few system calls StreamCore's lock needs that Swift can't call directly: `syscall` is
// variadic, and a spin-wait hint is a single instruction with no Swift spelling.
#ifndef STREAMCORE_SHIMS_H
#define STREAMCORE_SHIMS_H

#include <stdint.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Sleeps while `*word == expected` (or until woken, or spuriously).
static inline void streamkit_futex_wait(uint32_t *word, uint32_t expected) {
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

/// Wakes one thread sleeping in `streamkit_futex_wait` on `word`.
static inline void streamkit_futex_wake_one(uint32_t *word) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#endif

/// Tells the core that this thread is spinning on a shared word.
static inline void streamkit_spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

#endif
