#define _GNU_SOURCE
#include "CConcurrencyDebug.h"
// libunwind directly (the CLibunwind module map is not on the C include path);
// the CLibunwind dependency still links libunwind.
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <errno.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <link.h>

_Thread_local uintptr_t ctxdebug_current_owner_tls = 0;
int ctxdebug_access_mode_value = CTXDEBUG_ACCESS_UNCONFIGURED;
uint64_t ctxdebug_generation_value = 0;
_Thread_local uintptr_t ctxdebug_held_tls[CTXDEBUG_HELD_MAX];
_Thread_local int ctxdebug_held_count_tls = 0;

// libdispatch's exported current-queue function and main queue object (what
// dispatch_get_main_queue() returns). Declared here, not through <dispatch/dispatch.h>,
// so no Swift module sees a second declaration of them.
extern void *dispatch_get_current_queue(void);
extern char _dispatch_main_q[];
void *(*const ctxdebug_dispatch_current_queue)(void) = dispatch_get_current_queue;
const void *const ctxdebug_dispatch_main_queue = _dispatch_main_q;

extern void *dispatch_get_specific(const void *key);
extern void dispatch_queue_set_specific(void *queue, const void *key, void *context, void (*destructor)(void *));
void *(*const ctxdebug_dispatch_get_specific)(const void *key) = dispatch_get_specific;
const char ctxdebug_queue_tag_key = 0;

void ctxdebug_tag_current_queue(uintptr_t identity) {
    dispatch_queue_set_specific(dispatch_get_current_queue(), &ctxdebug_queue_tag_key, (void *)identity, NULL);
}

int ctxdebug_capture_stack(void **addresses, int max) {
    if (max <= 0) return 0;
    return unw_backtrace(addresses, max);
}

void ctxdebug_violation_trap(void) {
    raise(SIGTRAP);
    __asm__ volatile("" ::: "memory");
}

/* The kernel thread ID, asked once per thread (a syscall each time cost more than
   the rest of a cross-queue wait). A forked child's one thread forgets it. */
static _Thread_local uint64_t ctxdebug_thread_id_tls = 0;

static void ctxdebug_forget_thread_id(void) { ctxdebug_thread_id_tls = 0; }

static void ctxdebug_register_forget_thread_id(void) { pthread_atfork(NULL, NULL, ctxdebug_forget_thread_id); }

uint64_t ctxdebug_thread_id(void) {
    if (ctxdebug_thread_id_tls == 0) {
        static pthread_once_t once = PTHREAD_ONCE_INIT;
        pthread_once(&once, ctxdebug_register_forget_thread_id);
        ctxdebug_thread_id_tls = (uint64_t)syscall(SYS_gettid);
    }
    return ctxdebug_thread_id_tls;
}

uint64_t ctxdebug_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

_Thread_local int ctxdebug_in_checker_tls = 0;
_Thread_local void *ctxdebug_access_log_buffer_tls = 0;

static uint32_t crc32c_table[8][256];
static int crc32c_table_ready = 0;

static void crc32c_init_table(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t crc = i;
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
        crc32c_table[0][i] = crc;
    }
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t crc = crc32c_table[0][i];
        for (int t = 1; t < 8; t++) {
            crc = crc32c_table[0][crc & 0xFF] ^ (crc >> 8);
            crc32c_table[t][i] = crc;
        }
    }
    __atomic_store_n(&crc32c_table_ready, 1, __ATOMIC_RELEASE);
}

static uint32_t crc32c_software(uint32_t crc, const unsigned char *p, size_t n) {
    if (!__atomic_load_n(&crc32c_table_ready, __ATOMIC_ACQUIRE)) crc32c_init_table();
    while (n >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, p, 8);
        word ^= crc;
        crc = crc32c_table[7][word & 0xFF] ^ crc32c_table[6][(word >> 8) & 0xFF] ^
              crc32c_table[5][(word >> 16) & 0xFF] ^ crc32c_table[4][(word >> 24) & 0xFF] ^
              crc32c_table[3][(word >> 32) & 0xFF] ^ crc32c_table[2][(word >> 40) & 0xFF] ^
              crc32c_table[1][(word >> 48) & 0xFF] ^ crc32c_table[0][word >> 56];
        p += 8;
        n -= 8;
    }
    while (n--) crc = crc32c_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hardware(uint32_t crc, const unsigned char *p, size_t n) {
    uint64_t c = crc;
    while (n >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, p, 8);
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        n -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
    return c32;
}
#endif

uint32_t ctxdebug_crc32c(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = (const unsigned char *)data;
    crc = ~crc;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.2")) return ~crc32c_hardware(crc, p, length);
#endif
    return ~crc32c_software(crc, p, length);
}

int ctxdebug_write_all(int fd, const void *data, size_t length) {
    const char *p = (const char *)data;
    while (length > 0) {
        ssize_t n = write(fd, p, length);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += n;
        length -= (size_t)n;
    }
    return 0;
}

void ctxdebug_thread_name(char *buffer, size_t size) {
    if (size == 0) return;
    buffer[0] = 0;
    if (pthread_getname_np(pthread_self(), buffer, size) != 0) buffer[0] = 0;
    buffer[size - 1] = 0;
}

int ctxdebug_dladdr(const void *address, const char **file, void **fileBase,
                    const char **symbol, void **symbolAddress) {
    Dl_info info;
    memset(&info, 0, sizeof info);
    int found = dladdr(address, &info);
    if (file) *file = found ? info.dli_fname : NULL;
    if (fileBase) *fileBase = found ? info.dli_fbase : NULL;
    if (symbol) *symbol = found ? info.dli_sname : NULL;
    if (symbolAddress) *symbolAddress = found ? info.dli_saddr : NULL;
    return found;
}

struct ctxdebug_segment_walk {
    ctxdebug_loaded_segment *segments;
    int max;
    int count;
};

static int ctxdebug_segment_callback(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct ctxdebug_segment_walk *walk = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_LOAD) continue;
        if (walk->count < walk->max) {
            ctxdebug_loaded_segment *segment = &walk->segments[walk->count];
            segment->start = (uintptr_t)info->dlpi_addr + (uintptr_t)header->p_vaddr;
            segment->end = segment->start + (uintptr_t)header->p_memsz;
            segment->bias = (uintptr_t)info->dlpi_addr;
            segment->path = strdup(info->dlpi_name ? info->dlpi_name : "");
        }
        walk->count++;
    }
    return 0;
}

int ctxdebug_loaded_segments(ctxdebug_loaded_segment *segments, int max) {
    struct ctxdebug_segment_walk walk = { segments, max, 0 };
    dl_iterate_phdr(ctxdebug_segment_callback, &walk);
    return walk.count;
}
