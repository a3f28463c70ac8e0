#ifndef CCONCURRENCYDEBUG_H
#define CCONCURRENCYDEBUG_H

#include <stdint.h>
#include <stddef.h>

// The queue identity that is running now on this thread: set while a perform block
// runs, 0 outside any. Read on every checked access, so it is a plain C
// `_Thread_local` behind `static inline` accessors (as swift-nio keeps its event-loop
// id): one TLS load, no Swift runtime call.
extern _Thread_local uintptr_t ctxdebug_current_owner_tls;

// How much each access does: one of the modes below (Swift's view:
// ConcurrencyDebug.AccessMode). The checking level maps onto them: level 0 is OFF,
// levels 1 and 2 CHECK, level 3 (or a journal) CHECK_AND_LOG.
extern int ctxdebug_access_mode_value;
enum {
    CTXDEBUG_ACCESS_UNCONFIGURED = -1, // not configured yet: the slow path configures
    CTXDEBUG_ACCESS_OFF = 0,           // nothing (checking off)
    CTXDEBUG_ACCESS_CHECK = 1,         // compare owners
    CTXDEBUG_ACCESS_CHECK_AND_LOG = 2, // compare owners and append to the access journal
    CTXDEBUG_ACCESS_CHECK_GUARDED = 3, // compare owners out of line: a runtime guards an owner
                                       // after a violation (ConcurrencyDebug.beginGuarding)
};

static inline uintptr_t ctxdebug_current_owner(void) { return ctxdebug_current_owner_tls; }
static inline void ctxdebug_set_current_owner(uintptr_t owner) { ctxdebug_current_owner_tls = owner; }
static inline int ctxdebug_access_mode(void) {
    return __atomic_load_n(&ctxdebug_access_mode_value, __ATOMIC_RELAXED);
}
static inline void ctxdebug_set_access_mode(int mode) {
    __atomic_store_n(&ctxdebug_access_mode_value, mode, __ATOMIC_RELAXED);
}
// Sets the mode to `desired` if it is `expected`; returns 1 if it did.
static inline int ctxdebug_replace_access_mode(int expected, int desired) {
    return __atomic_compare_exchange_n(&ctxdebug_access_mode_value, &expected, desired, 0,
                                       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

// True when main-queue code runs now: libdispatch's current queue on this thread is
// the main queue. libdispatch keeps the current queue in its own thread-local, set for
// every work item it runs (on whatever thread `dispatchMain()` drains the main queue)
// and for every `sync` block, and to the main queue on the main thread. Costs one call
// into libdispatch and a compare: no queue-specific lookup, no lock. A queue that
// only targets the main queue is not the main queue here (the slow path's
// `DispatchQueue.getSpecific` still finds it).
extern void *(*const ctxdebug_dispatch_current_queue)(void);
extern const void *const ctxdebug_dispatch_main_queue;
static inline int ctxdebug_on_main_queue(void) {
    return ctxdebug_dispatch_current_queue() == ctxdebug_dispatch_main_queue;
}

// The identity a context's queue was tagged with (ctxdebug_tag_current_queue, called
// in a block on that queue), as libdispatch's queue-specific data of the queue running
// now (or a queue it targets): 0 when none. One call into libdispatch, where Swift's
// `DispatchQueue.getSpecific` also unboxes a generic value.
extern void *(*const ctxdebug_dispatch_get_specific)(const void *key);
extern const char ctxdebug_queue_tag_key;
static inline uintptr_t ctxdebug_current_queue_tag(void) {
    return (uintptr_t)ctxdebug_dispatch_get_specific(&ctxdebug_queue_tag_key);
}
void ctxdebug_tag_current_queue(uintptr_t identity);

// A process-wide generation a client moves on when shared state changes (the runtime:
// a store save while missing-merge is on). A hot path compares it with the generation
// it last looked at: one load and a compare while nothing changed.
extern uint64_t ctxdebug_generation_value;
static inline uint64_t ctxdebug_generation(void) {
    return __atomic_load_n(&ctxdebug_generation_value, __ATOMIC_ACQUIRE);
}
static inline uint64_t ctxdebug_generation_advance(void) {
    return __atomic_add_fetch(&ctxdebug_generation_value, 1, __ATOMIC_ACQ_REL);
}

// The queues this thread holds right now, innermost last: every perform block
// running on it (a `performAndWait` on a private queue runs on the caller's thread
// while that thread may already hold another queue). A `performAndWait` on a queue
// the thread already holds runs at once instead of deadlocking in dispatch_sync.
#define CTXDEBUG_HELD_MAX 32
extern _Thread_local uintptr_t ctxdebug_held_tls[CTXDEBUG_HELD_MAX];
extern _Thread_local int ctxdebug_held_count_tls;
static inline void ctxdebug_held_push(uintptr_t queue) {
    if (ctxdebug_held_count_tls < CTXDEBUG_HELD_MAX) ctxdebug_held_tls[ctxdebug_held_count_tls] = queue;
    ctxdebug_held_count_tls++;
}
static inline void ctxdebug_held_pop(void) {
    if (ctxdebug_held_count_tls > 0) ctxdebug_held_count_tls--;
}
static inline int ctxdebug_held_contains(uintptr_t queue) {
    int n = ctxdebug_held_count_tls < CTXDEBUG_HELD_MAX ? ctxdebug_held_count_tls : CTXDEBUG_HELD_MAX;
    for (int i = n - 1; i >= 0; i--) if (ctxdebug_held_tls[i] == queue) return 1;
    return 0;
}
// Copies the held queues (outermost first) into `out`; returns how many.
static inline int ctxdebug_held_copy(uintptr_t *out, int max) {
    int n = ctxdebug_held_count_tls < CTXDEBUG_HELD_MAX ? ctxdebug_held_count_tls : CTXDEBUG_HELD_MAX;
    if (n > max) n = max;
    for (int i = 0; i < n; i++) out[i] = ctxdebug_held_tls[i];
    return n;
}
static inline int ctxdebug_held_count(void) { return ctxdebug_held_count_tls; }
// Drops entries down to `count` (undoes pushes made since `ctxdebug_held_count()`).
static inline void ctxdebug_held_truncate(int count) {
    if (count >= 0 && count < ctxdebug_held_count_tls) ctxdebug_held_count_tls = count;
}

// Captures up to `max` return addresses of the calling thread with libunwind's
// unw_backtrace. Async-signal-safe. Returns how many were written.
int ctxdebug_capture_stack(void **addresses, int max);

// Raises SIGTRAP. A debugger can break on `ctxdebug_violation_trap`; the name is
// stable and documented.
void ctxdebug_violation_trap(void) __attribute__((noinline));

// A small unique id for the calling thread (its kernel tid).
uint64_t ctxdebug_thread_id(void);

// A monotonic clock in nanoseconds.
uint64_t ctxdebug_now_ns(void);

// A cheap, monotonic, constant-rate tick counter for journal timestamps: the TSC on
// x86-64 (a few ns, against ~25 ns for clock_gettime), nanoseconds elsewhere. The
// journal converts ticks to nanoseconds per block with two clock readings.
static inline uint64_t ctxdebug_ticks(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return ctxdebug_now_ns();
#endif
}

// Checker reentrancy guard: set while the checker's slow path runs on this thread,
// so that describing an access (which may read names through checked code) does not
// report a violation inside a violation.
extern _Thread_local int ctxdebug_in_checker_tls;
static inline int ctxdebug_in_checker(void) { return ctxdebug_in_checker_tls; }
static inline void ctxdebug_set_in_checker(int value) { ctxdebug_in_checker_tls = value; }

// The calling thread's access-log buffer (unretained; its pthread key holds it), so
// that journaling an access costs one load instead of a pthread_getspecific call.
extern _Thread_local void *ctxdebug_access_log_buffer_tls;
static inline void *ctxdebug_access_log_buffer(void) { return ctxdebug_access_log_buffer_tls; }
static inline void ctxdebug_set_access_log_buffer(void *buffer) { ctxdebug_access_log_buffer_tls = buffer; }

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as used by iSCSI, ext4 and
// LevelDB. Pass 0 as `crc` to start; pass a previous result to continue. Uses SSE4.2's
// crc32 instruction when the CPU has it, a table otherwise. The journal's checksum.
uint32_t ctxdebug_crc32c(uint32_t crc, const void *data, size_t length);

// Writes all of `length` bytes to `fd`, retrying on EINTR and short writes. Uses only
// write(2), so it is async-signal-safe. Returns 0, or -1 with errno set.
int ctxdebug_write_all(int fd, const void *data, size_t length);

// The calling thread's name (pthread_getname_np) into `buffer`; "" when it has none.
void ctxdebug_thread_name(char *buffer, size_t size);

// dladdr(3) for `address`: the file and symbol it belongs to. Returns 0 when unknown.
// Any output may be NULL afterwards.
int ctxdebug_dladdr(const void *address, const char **file, void **fileBase,
                    const char **symbol, void **symbolAddress);

// One loaded ELF object's PT_LOAD segment, from dl_iterate_phdr: the addresses
// [start, end) it occupies, and `bias`, what to subtract from a runtime address to get
// the file's virtual address (0 for a non-PIE executable). `path` is malloc'd (free
// it); "" for the main executable, which dl_iterate_phdr does not name.
typedef struct ctxdebug_loaded_segment {
    uintptr_t start;
    uintptr_t end;
    uintptr_t bias;
    char *path;
} ctxdebug_loaded_segment;

// Fills `segments` with up to `max` PT_LOAD segments of the objects
// the dynamic loader has loaded; returns how many there are in all (call again with a
// bigger buffer when that is more than `max`). Reads only the loader's own records,
// under its lock, never the mapped files themselves: safe while other threads map,
// unmap, dlopen and dlclose.
int ctxdebug_loaded_segments(ctxdebug_loaded_segment *segments, int max);

#include "StackSampler.h"
#include "WaitRecords.h"

#endif
