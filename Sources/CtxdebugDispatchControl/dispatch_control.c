// The preload library of `ctxdebug explore` (docs/explore.md, "What is controlled"):
// libdispatch's entry points, and the sleeps and the run loop's wait, become scheduling
// points of the runtime's scheduler in a process that `ctxdebug explore` runs.
//
// As libfaketime does: every real function is found with dlsym(RTLD_NEXT, ...) at its
// first call (a call that comes before anything was set up simply goes to the real one),
// and the library is inert until the runtime installs its hooks, which happens only in a
// process connected to `ctxdebug explore` (ManagedContext's DispatchControl.swift). Until
// then, and for every call the hooks do not take (a thread that is no unit of the run),
// each function is one load and a tail call to libdispatch.
#define _GNU_SOURCE
#include "ctxdebug_dispatch_control.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef void *queue_t;
typedef void *block_t;
typedef uint64_t dtime_t;
#define TIME_NOW ((dtime_t)0)
#define TIME_FOREVER (~(dtime_t)0)

static const ctxdebug_dc_hooks *hooks;  // set once, by the runtime

static inline const ctxdebug_dc_hooks *installed(void) { return __atomic_load_n(&hooks, __ATOMIC_ACQUIRE); }

#define REAL(name, type)                                                              \
    static type real_##name(void) {                                                   \
        static type fn;                                                               \
        type f = __atomic_load_n(&fn, __ATOMIC_RELAXED);                              \
        if (!f) {                                                                     \
            f = (type)dlsym(RTLD_NEXT, #name);                                        \
            __atomic_store_n(&fn, f, __ATOMIC_RELAXED);                               \
        }                                                                             \
        return f;                                                                     \
    }

typedef void (*async_t)(queue_t, block_t);
typedef void (*async_f_t)(queue_t, void *, ctxdebug_dc_function_t);
typedef void (*after_t)(dtime_t, queue_t, block_t);
typedef void (*after_f_t)(dtime_t, queue_t, void *, ctxdebug_dc_function_t);
typedef void (*group_async_t)(void *, queue_t, block_t);
typedef void (*group_async_f_t)(void *, queue_t, void *, ctxdebug_dc_function_t);
typedef long (*wait_t)(void *, dtime_t);
typedef long (*signal_t)(void *);
typedef void (*leave_t)(void *);
typedef void (*main_t)(void);
typedef queue_t (*create_t)(const char *, void *);
typedef queue_t (*create_target_t)(const char *, void *, queue_t);
typedef void *(*attr_qos_t)(void *, int, int);
typedef void *(*attr_freq_t)(void *, unsigned long);
typedef const char *(*label_t)(queue_t);
typedef int (*nanosleep_t)(const struct timespec *, struct timespec *);
typedef int (*clock_nanosleep_t)(clockid_t, int, const struct timespec *, struct timespec *);
typedef int (*usleep_t)(useconds_t);
typedef unsigned (*sleep_t)(unsigned);
typedef int (*epoll_wait_t)(int, struct epoll_event *, int, int);
typedef int (*ppoll_t)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
typedef int (*poll_t)(struct pollfd *, nfds_t, int);
typedef void *(*block_copy_t)(const void *);
typedef void (*block_release_t)(const void *);

REAL(dispatch_async, async_t)
REAL(dispatch_async_f, async_f_t)
REAL(dispatch_barrier_async, async_t)
REAL(dispatch_barrier_async_f, async_f_t)
REAL(dispatch_sync, async_t)
REAL(dispatch_sync_f, async_f_t)
REAL(dispatch_barrier_sync, async_t)
REAL(dispatch_barrier_sync_f, async_f_t)
REAL(dispatch_after, after_t)
REAL(dispatch_after_f, after_f_t)
REAL(dispatch_group_async, group_async_t)
REAL(dispatch_group_async_f, group_async_f_t)
REAL(dispatch_group_notify, group_async_t)
REAL(dispatch_group_notify_f, group_async_f_t)
REAL(dispatch_group_enter, leave_t)
REAL(dispatch_group_leave, leave_t)
REAL(dispatch_group_wait, wait_t)
REAL(dispatch_semaphore_wait, wait_t)
REAL(dispatch_semaphore_signal, signal_t)
REAL(dispatch_main, main_t)
REAL(dispatch_queue_create, create_t)
REAL(dispatch_queue_create_with_target, create_target_t)
REAL(dispatch_queue_attr_make_with_qos_class, attr_qos_t)
REAL(dispatch_queue_attr_make_with_autorelease_frequency, attr_freq_t)
REAL(dispatch_queue_get_label, label_t)
REAL(nanosleep, nanosleep_t)
REAL(clock_nanosleep, clock_nanosleep_t)
REAL(usleep, usleep_t)
REAL(sleep, sleep_t)
REAL(epoll_wait, epoll_wait_t)
REAL(ppoll, ppoll_t)
REAL(poll, poll_t)

static void *lookup(const char *name) { return dlsym(RTLD_DEFAULT, name); }

typedef dtime_t (*dispatch_time_fn)(dtime_t, int64_t);
REAL(dispatch_time, dispatch_time_fn)

/// Whether a deadline is more than a second away (or on the wall clock, or never): a
/// watchdog's or a test's timeout rather than the app's own timing.
static int is_long_deadline(dtime_t when) {
    // libdispatch's encoding: bit 63 alone marks its monotonic clock (Swift's Task.sleep),
    // bits 63 and 62 the wall clock; neither, the uptime clock.
    if (when == TIME_FOREVER) return 1;
    if ((when >> 62) == 3) return 1;  // the wall clock: a date, not the app's own timing
    dtime_t now;
    if (when >> 63) {
        struct timespec ts;
        clock_gettime(CLOCK_BOOTTIME, &ts);
        when &= ~(1ull << 63);
        now = (dtime_t)ts.tv_sec * 1000000000ull + (dtime_t)ts.tv_nsec;
    } else {
        now = real_dispatch_time()(TIME_NOW, 0);
    }
    return when > now && when - now > 1000000000ull;
}

// MARK: Blocks, as the blocks ABI lays them out (no -fblocks needed)

struct block_layout {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void *);
};

static block_copy_t block_copy;
static block_release_t block_release;

static void *copy_block(block_t block) {
    if (!block_copy) block_copy = (block_copy_t)lookup("_Block_copy");
    return block_copy ? block_copy(block) : NULL;
}

/// Runs a copied block once and releases it.
static void run_block(void *copied) {
    ((struct block_layout *)copied)->invoke(copied);
    if (!block_release) block_release = (block_release_t)lookup("_Block_release");
    if (block_release) block_release(copied);
}

// A block made by dispatch_block_create (a DispatchWorkItem's, as Swift's
// `async(group:flags: .barrier)` submits one) carries libdispatch's private data right
// after its layout: a magic number, then its flags (libdispatch's block.cpp,
// _dispatch_block_get_data). Its barrier flag makes it a barrier wherever it is submitted.
#define BLOCK_PRIVATE_DATA_MAGIC 0xD159B10Cul
#define BLOCK_FLAG_BARRIER 0x1ul  // DISPATCH_BLOCK_BARRIER

struct block_descriptor {
    unsigned long reserved;
    unsigned long size;
};

struct block_with_descriptor {
    struct block_layout layout;
    struct block_descriptor *descriptor;
};

/// Whether `block` was made with DISPATCH_BLOCK_BARRIER: its invoke is libdispatch's
/// (`_dispatch_block_special_invoke` holds it), and it is read within the block's size only.
static int block_is_barrier(void *block) {
    static void (**special_invoke)(void *);
    if (!special_invoke) special_invoke = lookup("_dispatch_block_special_invoke");
    struct block_with_descriptor *b = block;
    if (!b || !special_invoke || b->layout.invoke != *special_invoke) return 0;
    if (!b->descriptor || b->descriptor->size < sizeof *b + 2 * sizeof(unsigned long)) return 0;
    unsigned long *data = (unsigned long *)(b + 1);
    return data[0] == BLOCK_PRIVATE_DATA_MAGIC && (data[1] & BLOCK_FLAG_BARRIER) != 0;
}

static void drop_block(void *copied) {
    if (!block_release) block_release = (block_release_t)lookup("_Block_release");
    if (block_release) block_release(copied);
}

// MARK: Which queues are concurrent

// The attributes that make a concurrent queue: libdispatch's own, and every attribute
// made from one of them (with a QoS class or an autorelease frequency).
#define MAX_CONCURRENT_ATTRS 64
static void *concurrent_attrs[MAX_CONCURRENT_ATTRS];
static int concurrent_attr_count;
// The concurrent queues made so far (open addressing; a full table forgets nothing, it
// refuses new entries, and such a queue is taken as serial).
#define QUEUE_SLOTS 4096
static void *concurrent_queues[QUEUE_SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int active = -1;  // whether this process is explored (CTXDEBUG_EXPLORE_SOCKET set)

static int is_active(void) {
    int value = __atomic_load_n(&active, __ATOMIC_RELAXED);
    if (value < 0) {
        const char *socket = getenv("CTXDEBUG_EXPLORE_SOCKET");
        value = socket && socket[0] ? 1 : 0;
        __atomic_store_n(&active, value, __ATOMIC_RELAXED);
    }
    return value;
}

static int attr_is_concurrent(void *attr) {
    if (!attr) return 0;
    static void *base;
    if (!base) base = lookup("_dispatch_queue_attr_concurrent");
    if (attr == base) return 1;
    int found = 0;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < concurrent_attr_count; i++) found |= concurrent_attrs[i] == attr;
    pthread_mutex_unlock(&table_lock);
    return found;
}

static void remember_attr(void *attr) {
    pthread_mutex_lock(&table_lock);
    if (concurrent_attr_count < MAX_CONCURRENT_ATTRS) concurrent_attrs[concurrent_attr_count++] = attr;
    pthread_mutex_unlock(&table_lock);
}

static size_t slot_of(void *queue) { return ((uintptr_t)queue >> 4) * 2654435761u % QUEUE_SLOTS; }

static void remember_queue(void *queue) {
    pthread_mutex_lock(&table_lock);
    size_t slot = slot_of(queue);
    for (size_t i = 0; i < QUEUE_SLOTS; i++, slot = (slot + 1) % QUEUE_SLOTS) {
        if (concurrent_queues[slot] == NULL || concurrent_queues[slot] == queue) {
            concurrent_queues[slot] = queue;
            break;
        }
    }
    pthread_mutex_unlock(&table_lock);
}

// Compared here rather than with strncmp, whose first call would cost a symbol binding
// at a process's first hook.
static int has_prefix(const char *text, const char *prefix) {
    for (; *prefix; text++, prefix++) {
        if (*text != *prefix) return 0;
    }
    return 1;
}

static int queue_is_concurrent(void *queue) {
    const char *label = real_dispatch_queue_get_label()(queue);
    if (label && has_prefix(label, "com.apple.root.")) return 1;  // the global queues
    int found = 0;
    pthread_mutex_lock(&table_lock);
    size_t slot = slot_of(queue);
    for (size_t i = 0; i < QUEUE_SLOTS && concurrent_queues[slot]; i++, slot = (slot + 1) % QUEUE_SLOTS) {
        if (concurrent_queues[slot] == queue) {
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return found;
}

void *dispatch_queue_attr_make_with_qos_class(void *attr, int qos, int priority) {
    void *made = real_dispatch_queue_attr_make_with_qos_class()(attr, qos, priority);
    if (is_active() && attr_is_concurrent(attr)) remember_attr(made);
    return made;
}

void *dispatch_queue_attr_make_with_autorelease_frequency(void *attr, unsigned long frequency) {
    void *made = real_dispatch_queue_attr_make_with_autorelease_frequency()(attr, frequency);
    if (is_active() && attr_is_concurrent(attr)) remember_attr(made);
    return made;
}

queue_t dispatch_queue_create(const char *label, void *attr) {
    queue_t queue = real_dispatch_queue_create()(label, attr);
    if (is_active() && attr_is_concurrent(attr)) remember_queue(queue);
    return queue;
}

static void remember_target(void *queue, void *target);

queue_t dispatch_queue_create_with_target(const char *label, void *attr, queue_t target) {
    queue_t queue = real_dispatch_queue_create_with_target()(label, attr, target);
    if (is_active() && attr_is_concurrent(attr)) remember_queue(queue);
    if (is_active() && target) remember_target(queue, target);
    return queue;
}

// MARK: Target queues, timer sources (the tables of dispatch_control_prims)

// A map from one libdispatch object to another (open addressing, under table_lock; a
// full map refuses new entries: such a queue's target, or such a timer, is not known).
#define MAP_SLOTS 1024
struct object_map {
    void *keys[MAP_SLOTS];
    void *values[MAP_SLOTS];
};

static size_t map_slot(void *key) { return ((uintptr_t)key >> 4) * 2654435761u % MAP_SLOTS; }

static void map_set(struct object_map *map, void *key, void *value) {
    pthread_mutex_lock(&table_lock);
    size_t slot = map_slot(key);
    for (size_t i = 0; i < MAP_SLOTS; i++, slot = (slot + 1) % MAP_SLOTS) {
        if (map->keys[slot] == NULL || map->keys[slot] == key) {
            map->keys[slot] = key;
            map->values[slot] = value;
            break;
        }
    }
    pthread_mutex_unlock(&table_lock);
}

/// The value for `key`, or NULL; `found` says whether the key is in the map at all.
static void *map_get(struct object_map *map, void *key, int *found) {
    void *value = NULL;
    int present = 0;
    pthread_mutex_lock(&table_lock);
    size_t slot = map_slot(key);
    for (size_t i = 0; i < MAP_SLOTS && map->keys[slot]; i++, slot = (slot + 1) % MAP_SLOTS) {
        if (map->keys[slot] == key) {
            value = map->values[slot];
            present = 1;
            break;
        }
    }
    pthread_mutex_unlock(&table_lock);
    if (found) *found = present;
    return value;
}

/// Each queue's target, when the app set one.
static struct object_map target_queues;
/// Each timer source made in an explored process, and the queue of its handler.
static struct object_map timer_sources;

static void remember_target(void *queue, void *target) { map_set(&target_queues, queue, target); }
static void *target_of(void *queue) { return map_get(&target_queues, queue, NULL); }

typedef void (*set_target_t)(void *, queue_t);
REAL(dispatch_set_target_queue, set_target_t)

void dispatch_set_target_queue(void *object, queue_t target) {
    real_dispatch_set_target_queue()(object, target);
    if (is_active() && target) remember_target(object, target);
}

// MARK: The door

static const char *label_of(void *queue) { return real_dispatch_queue_get_label()(queue); }
static void real_async(void *queue, void *context, ctxdebug_dc_function_t function) {
    real_dispatch_async_f()(queue, context, function);
}

static void *early_work_of_thread(void **queue);

int ctxdebug_dispatch_control_install_v3(const ctxdebug_dc_hooks *given, ctxdebug_dc_services *services) {
    if (!given || !services) return 0;
    services->async_f = real_async;
    services->is_concurrent = queue_is_concurrent;
    services->label = label_of;
    services->main_queue = lookup("_dispatch_main_q");
    typedef void *(*global_t)(long, unsigned long);
    global_t global = (global_t)lookup("dispatch_get_global_queue");
    services->overcommit_queue = global ? global(0x15 /* QOS_CLASS_DEFAULT */, 0x2 /* DISPATCH_QUEUE_OVERCOMMIT */) : NULL;
    services->target_of = target_of;
    services->early_work = early_work_of_thread;
    const ctxdebug_dc_hooks *expected = NULL;
    if (!__atomic_compare_exchange_n(&hooks, &expected, given, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) return 0;
    // Explored from now on, though CTXDEBUG_EXPLORE_SOCKET may be unset (the in-process
    // `explore { }` installs the hooks at its first run): queues made from here on are
    // told apart, concurrent from serial, as in a process `ctxdebug explore` runs.
    __atomic_store_n(&active, 1, __ATOMIC_RELAXED);
    return 1;
}

// MARK: Work submitted before the hooks

// An explored process submits work before its first runtime call installs the hooks: an
// async main's first job, a test's task, a block of the app's launch. The thread that
// makes that call inside such a work item becomes the run's driver, and the run must
// learn when the item ends (its task awaited, its thread went back to libdispatch): until
// then the driver holds the turn, and an item of the main queue holds the main queue.
// So each such item runs through `run_early_work`, which tells the hooks when it ends.
struct early_work {
    void *context;
    ctxdebug_dc_function_t function;
    queue_t queue;
};

static __thread struct early_work *running_early_work;

static void run_early_work(void *raw) {
    struct early_work *work = raw;
    struct early_work *outer = running_early_work;
    running_early_work = work;
    work->function(work->context);
    running_early_work = outer;
    const ctxdebug_dc_hooks *h = installed();
    if (h && h->early_work_ended) h->early_work_ended(work);
    free(work);
}

static void *early_work_of_thread(void **queue) {
    struct early_work *work = running_early_work;
    if (queue) *queue = work ? work->queue : NULL;
    return work;
}

/// Submits `function(context)` through `run_early_work`; 0 when it could not (no memory).
static int submit_early(queue_t queue, void *context, ctxdebug_dc_function_t function, int barrier) {
    struct early_work *work = malloc(sizeof *work);
    if (!work) return 0;
    *work = (struct early_work){context, function, queue};
    (barrier ? real_dispatch_barrier_async_f() : real_dispatch_async_f())(queue, work, run_early_work);
    return 1;
}

/// Whether a block is libdispatch's own kind (`dispatch_block_create`, a DispatchWorkItem):
/// submitted as it is, so that it keeps its flags, waiters and cancellation.
static int block_is_special(void *block) {
    static void (**special_invoke)(void *);
    if (!special_invoke) special_invoke = lookup("_dispatch_block_special_invoke");
    return block && special_invoke && ((struct block_layout *)block)->invoke == *special_invoke;
}

// MARK: Queues kept alive

typedef void (*object_fn_t)(void *);
REAL(dispatch_retain, object_fn_t)
REAL(dispatch_release, object_fn_t)

// libdispatch retains a queue for each block submitted to it until the block ran; a
// block the schedule holds back is not submitted yet, so the control keeps its queue
// alive itself: an app may release its queue right after its `async` (a temporary
// `DispatchQueue(label:)`), and the block must still start on it.
struct held_work {
    queue_t queue;
    void *context;
    ctxdebug_dc_function_t function;
};

static void run_held_work(void *raw) {
    struct held_work *work = raw;
    queue_t queue = work->queue;
    work->function(work->context);
    free(work);
    real_dispatch_release()(queue);
}

/// `function(context)` wrapped to keep `queue` alive until it ran; NULL (no memory): the
/// caller hands the work over as it is.
static struct held_work *hold_queue(queue_t queue, void *context, ctxdebug_dc_function_t function) {
    struct held_work *work = malloc(sizeof *work);
    if (!work) return NULL;
    *work = (struct held_work){queue, context, function};
    real_dispatch_retain()(queue);
    return work;
}

/// The work was not taken: the queue goes back to the app's references only.
static void unhold_queue(struct held_work *work) {
    real_dispatch_release()(work->queue);
    free(work);
}

/// `hooks->async`, with the queue kept alive while the schedule holds the block.
static int async_held(const ctxdebug_dc_hooks *h, queue_t queue, void *context, ctxdebug_dc_function_t function, int barrier) {
    struct held_work *work = hold_queue(queue, context, function);
    if (!work) return h->async(queue, context, function, barrier);
    if (h->async(queue, work, run_held_work, barrier)) return 1;
    unhold_queue(work);
    return 0;
}

// MARK: Enqueue

static void submit_block(queue_t queue, block_t block, int barrier) {
    const ctxdebug_dc_hooks *h = installed();
    if (h) {
        void *copied = copy_block(block);
        if (copied) {
            if (async_held(h, queue, copied, run_block, barrier || block_is_barrier(block))) return;
            drop_block(copied);
        }
    } else if (is_active() && !block_is_special(block)) {
        void *copied = copy_block(block);
        if (copied) {
            if (submit_early(queue, copied, run_block, barrier)) return;
            drop_block(copied);
        }
    }
    (barrier ? real_dispatch_barrier_async() : real_dispatch_async())(queue, block);
}

static void submit_function(queue_t queue, void *context, ctxdebug_dc_function_t function, int barrier) {
    const ctxdebug_dc_hooks *h = installed();
    if (h && async_held(h, queue, context, function, barrier)) return;
    if (!h && is_active() && submit_early(queue, context, function, barrier)) return;
    (barrier ? real_dispatch_barrier_async_f() : real_dispatch_async_f())(queue, context, function);
}

void dispatch_async(queue_t queue, block_t block) { submit_block(queue, block, 0); }
void dispatch_async_f(queue_t queue, void *context, ctxdebug_dc_function_t function) { submit_function(queue, context, function, 0); }
void dispatch_barrier_async(queue_t queue, block_t block) { submit_block(queue, block, 1); }
void dispatch_barrier_async_f(queue_t queue, void *context, ctxdebug_dc_function_t function) {
    submit_function(queue, context, function, 1);
}

/// A `dispatch_sync` on the main queue from another thread while the main thread waits in
/// its run loop: the main thread runs the block for the caller (the hook's `main_sync`).
static int hosted_sync(const ctxdebug_dc_hooks *h, queue_t queue, void *context, ctxdebug_dc_function_t function) {
    static void *main_queue;
    if (!main_queue) main_queue = lookup("_dispatch_main_q");
    return h && h->main_sync && queue == main_queue && h->main_sync(context, function);
}

static void invoke_sync_block(void *block) { ((struct block_layout *)block)->invoke(block); }

/// Every kind of `dispatch_sync`: `real` runs it for real (the block, or the function).
static void controlled_sync(queue_t queue, int barrier, void *context, ctxdebug_dc_function_t function, void (*real)(queue_t, void *, void *)) {
    const ctxdebug_dc_hooks *h = installed();
    int began = h && h->sync_begin(queue, barrier);
    if (!hosted_sync(h, queue, context, function)) real(queue, context, (void *)function);
    if (began) h->sync_end(queue);
}

static void real_sync_block(queue_t queue, void *block, void *unused) { (void)unused; real_dispatch_sync()(queue, block); }
static void real_barrier_sync_block(queue_t queue, void *block, void *unused) { (void)unused; real_dispatch_barrier_sync()(queue, block); }
static void real_sync_function(queue_t queue, void *context, void *function) {
    real_dispatch_sync_f()(queue, context, (ctxdebug_dc_function_t)function);
}
static void real_barrier_sync_function(queue_t queue, void *context, void *function) {
    real_dispatch_barrier_sync_f()(queue, context, (ctxdebug_dc_function_t)function);
}

void dispatch_sync(queue_t queue, block_t block) {
    controlled_sync(queue, block_is_barrier(block), block, invoke_sync_block, real_sync_block);
}

void dispatch_sync_f(queue_t queue, void *context, ctxdebug_dc_function_t function) {
    controlled_sync(queue, 0, context, function, real_sync_function);
}

void dispatch_barrier_sync(queue_t queue, block_t block) {
    controlled_sync(queue, 1, block, invoke_sync_block, real_barrier_sync_block);
}

void dispatch_barrier_sync_f(queue_t queue, void *context, ctxdebug_dc_function_t function) {
    controlled_sync(queue, 1, context, function, real_barrier_sync_function);
}

/// `hooks->after`, with the queue kept alive while the timer waits.
static int after_held(const ctxdebug_dc_hooks *h, dtime_t when, queue_t queue, void *context, ctxdebug_dc_function_t function) {
    int is_long = is_long_deadline(when);
    struct held_work *work = hold_queue(queue, context, function);
    if (!work) return h->after(when, is_long, queue, context, function);
    if (h->after(when, is_long, queue, work, run_held_work)) return 1;
    unhold_queue(work);
    return 0;
}

void dispatch_after(dtime_t when, queue_t queue, block_t block) {
    const ctxdebug_dc_hooks *h = installed();
    if (h) {
        void *copied = copy_block(block);
        if (copied) {
            if (after_held(h, when, queue, copied, run_block)) return;
            drop_block(copied);
        }
    }
    real_dispatch_after()(when, queue, block);
}

void dispatch_after_f(dtime_t when, queue_t queue, void *context, ctxdebug_dc_function_t function) {
    const ctxdebug_dc_hooks *h = installed();
    if (h && after_held(h, when, queue, context, function)) return;
    real_dispatch_after_f()(when, queue, context, function);
}

// MARK: Groups

void dispatch_group_leave(void *group);

struct group_work {
    void *group;
    void *context;
    ctxdebug_dc_function_t function;
};

static void run_group_work(void *raw) {
    struct group_work *work = raw;
    work->function(work->context);
    void *group = work->group;
    free(work);
    dispatch_group_leave(group);  // the interposed one: waiters may go on
}

static int group_submit(void *group, queue_t queue, void *context, ctxdebug_dc_function_t function, int barrier) {
    const ctxdebug_dc_hooks *h = installed();
    if (!h) return 0;
    struct group_work *work = malloc(sizeof *work);
    if (!work) return 0;
    *work = (struct group_work){group, context, function};
    real_dispatch_group_enter()(group);
    if (!async_held(h, queue, work, run_group_work, barrier)) real_dispatch_async_f()(queue, work, run_group_work);
    return 1;
}

void dispatch_group_async(void *group, queue_t queue, block_t block) {
    if (installed()) {
        void *copied = copy_block(block);
        if (copied) {
            if (group_submit(group, queue, copied, run_block, block_is_barrier(block))) return;
            drop_block(copied);
        }
    }
    real_dispatch_group_async()(group, queue, block);
}

void dispatch_group_async_f(void *group, queue_t queue, void *context, ctxdebug_dc_function_t function) {
    if (group_submit(group, queue, context, function, 0)) return;
    real_dispatch_group_async_f()(group, queue, context, function);
}

static int group_is_empty(void *group) { return real_dispatch_group_wait()(group, TIME_NOW) == 0; }

/// `hooks->notify`, with the queue kept alive while the block waits for the group.
static int notify_held(const ctxdebug_dc_hooks *h, void *group, queue_t queue, void *context, ctxdebug_dc_function_t function) {
    int empty = group_is_empty(group);
    struct held_work *work = hold_queue(queue, context, function);
    if (!work) return h->notify(group, empty, queue, context, function);
    if (h->notify(group, empty, queue, work, run_held_work)) return 1;
    unhold_queue(work);
    return 0;
}

void dispatch_group_notify(void *group, queue_t queue, block_t block) {
    const ctxdebug_dc_hooks *h = installed();
    if (h) {
        void *copied = copy_block(block);
        if (copied) {
            if (notify_held(h, group, queue, copied, run_block)) return;
            drop_block(copied);
        }
    }
    real_dispatch_group_notify()(group, queue, block);
}

void dispatch_group_notify_f(void *group, queue_t queue, void *context, ctxdebug_dc_function_t function) {
    const ctxdebug_dc_hooks *h = installed();
    if (h && notify_held(h, group, queue, context, function)) return;
    real_dispatch_group_notify_f()(group, queue, context, function);
}

void dispatch_group_leave(void *group) {
    real_dispatch_group_leave()(group);
    const ctxdebug_dc_hooks *h = installed();
    if (h && group_is_empty(group)) h->wake(CTXDEBUG_DC_WAIT_GROUP, group);
}

/// A wait on a semaphore or group: the real object decides (a try that does not block);
/// when it would block, the caller is disabled in the schedule until it is woken.
static long controlled_wait(int kind, void *object, dtime_t timeout, wait_t real) {
    const ctxdebug_dc_hooks *h = installed();
    if (!h || timeout == TIME_NOW) return real(object, timeout);
    for (;;) {
        long result = real(object, TIME_NOW);
        if (result == 0) return 0;
        switch (h->wait(kind, object, timeout == TIME_FOREVER ? 0 : is_long_deadline(timeout) ? 2 : 1)) {
        case CTXDEBUG_DC_RETRY: continue;
        case CTXDEBUG_DC_TIMED_OUT: return result;
        default: return real(object, timeout);
        }
    }
}

long dispatch_group_wait(void *group, dtime_t timeout) {
    return controlled_wait(CTXDEBUG_DC_WAIT_GROUP, group, timeout, real_dispatch_group_wait());
}

long dispatch_semaphore_wait(void *semaphore, dtime_t timeout) {
    return controlled_wait(CTXDEBUG_DC_WAIT_SEMAPHORE, semaphore, timeout, real_dispatch_semaphore_wait());
}

long dispatch_semaphore_signal(void *semaphore) {
    long woke = real_dispatch_semaphore_signal()(semaphore);
    const ctxdebug_dc_hooks *h = installed();
    if (h) h->wake(CTXDEBUG_DC_WAIT_SEMAPHORE, semaphore);
    return woke;
}

// MARK: The main thread, sleeps

void dispatch_main(void) {
    const ctxdebug_dc_hooks *h = installed();
    if (h) h->main_parks();
    real_dispatch_main()();
    abort();  // dispatch_main does not return
}

static int is_main_thread(void) { return syscall(SYS_gettid) == getpid(); }

int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout) {
    const ctxdebug_dc_hooks *h = installed();
    if (h && timeout != 0 && is_main_thread() && h->run_loop_idle()) return real_epoll_wait()(epfd, events, maxevents, 0);
    return real_epoll_wait()(epfd, events, maxevents, timeout);
}

// The run loop's wait on Linux (CFRunLoop polls its descriptors with ppoll).
int ppoll(struct pollfd *fds, nfds_t count, const struct timespec *timeout, const sigset_t *mask) {
    const ctxdebug_dc_hooks *h = installed();
    int zero = timeout && timeout->tv_sec == 0 && timeout->tv_nsec == 0;
    if (h && !zero && is_main_thread() && h->run_loop_idle()) {
        struct timespec now = {0, 0};
        return real_ppoll()(fds, count, &now, mask);
    }
    return real_ppoll()(fds, count, timeout, mask);
}

int poll(struct pollfd *fds, nfds_t count, int timeout) {
    const ctxdebug_dc_hooks *h = installed();
    if (h && timeout != 0 && is_main_thread() && h->run_loop_idle()) return real_poll()(fds, count, 0);
    return real_poll()(fds, count, timeout);
}

int nanosleep(const struct timespec *duration, struct timespec *remaining) {
    const ctxdebug_dc_hooks *h = installed();
    if (h && h->sleep()) {
        if (remaining) memset(remaining, 0, sizeof *remaining);
        return 0;
    }
    return real_nanosleep()(duration, remaining);
}

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *duration, struct timespec *remaining) {
    const ctxdebug_dc_hooks *h = installed();
    if (h && h->sleep()) return 0;
    return real_clock_nanosleep()(clock, flags, duration, remaining);
}

int usleep(useconds_t microseconds) {
    const ctxdebug_dc_hooks *h = installed();
    if (h && h->sleep()) return 0;
    return real_usleep()(microseconds);
}

unsigned sleep(unsigned seconds) {
    const ctxdebug_dc_hooks *h = installed();
    if (h && h->sleep()) return 0;
    return real_sleep()(seconds);
}

// MARK: dispatch_apply

typedef void (*apply_t)(size_t, queue_t, block_t);
typedef void (*apply_f_t)(size_t, queue_t, void *, ctxdebug_dc_apply_function_t);
REAL(dispatch_apply, apply_t)
REAL(dispatch_apply_f, apply_f_t)

/// Calls a block that takes the iteration's index (the caller of dispatch_apply keeps it
/// alive until every iteration ran: no copy).
static void invoke_apply_block(void *block, size_t index) {
    ((void (*)(void *, size_t))((struct block_layout *)block)->invoke)(block, index);
}

/// `dispatch_apply`: on a concurrent queue (or libdispatch's choice, NULL) each iteration
/// is a block of the schedule and the caller waits for them all; on a serial queue the
/// iterations run on the caller's thread once the queue is its (a `dispatch_sync`).
static int controlled_apply(size_t iterations, queue_t queue, void *context, ctxdebug_dc_apply_function_t function) {
    const ctxdebug_dc_hooks *h = installed();
    if (!h || !h->apply) return 0;
    return h->apply(iterations, queue, context, function);
}

void dispatch_apply(size_t iterations, queue_t queue, block_t block) {
    const ctxdebug_dc_hooks *h = installed();
    if (controlled_apply(iterations, queue, block, invoke_apply_block)) return;
    if (h && queue && h->sync_begin(queue, 0)) {
        real_dispatch_apply()(iterations, queue, block);
        h->sync_end(queue);
        return;
    }
    real_dispatch_apply()(iterations, queue, block);
}

void dispatch_apply_f(size_t iterations, queue_t queue, void *context, ctxdebug_dc_apply_function_t function) {
    const ctxdebug_dc_hooks *h = installed();
    if (controlled_apply(iterations, queue, context, function)) return;
    if (h && queue && h->sync_begin(queue, 0)) {
        real_dispatch_apply_f()(iterations, queue, context, function);
        h->sync_end(queue);
        return;
    }
    real_dispatch_apply_f()(iterations, queue, context, function);
}

// MARK: Timer sources

// A timer source of an explored process lives on virtual time, as dispatch_after does:
// its schedule and handler are the scheduler's, and the real source, created, resumed
// and cancelled as the app says, never has a timer set, so it never fires by itself.
// Other sources (signals, descriptors) are not controlled.

typedef void *(*source_create_t)(void *, uintptr_t, uintptr_t, queue_t);
typedef void (*set_timer_t)(void *, dtime_t, uint64_t, uint64_t);
typedef void (*set_handler_t)(void *, block_t);
typedef void (*set_handler_f_t)(void *, ctxdebug_dc_function_t);
typedef void (*object_t)(void *);
typedef void *(*get_context_t)(void *);
REAL(dispatch_source_create, source_create_t)
REAL(dispatch_source_set_timer, set_timer_t)
REAL(dispatch_source_set_event_handler, set_handler_t)
REAL(dispatch_source_set_event_handler_f, set_handler_f_t)
REAL(dispatch_source_cancel, object_t)
REAL(dispatch_resume, object_t)
REAL(dispatch_activate, object_t)
REAL(dispatch_suspend, object_t)
REAL(dispatch_get_context, get_context_t)

/// Whether `address` (a caller's) is in libdispatch itself: its own timers (the workqueue
/// monitor's, on its manager queue) are its machinery, not the app's.
static int is_in_libdispatch(void *address) {
    Dl_info caller, dispatch;
    if (!dladdr(address, &caller) || !dladdr((void *)real_dispatch_source_create(), &dispatch)) return 0;
    return caller.dli_fbase == dispatch.dli_fbase;
}

void *dispatch_source_create(void *type, uintptr_t handle, uintptr_t mask, queue_t queue) {
    void *caller = __builtin_return_address(0);
    void *source = real_dispatch_source_create()(type, handle, mask, queue);
    if (source && is_active() && type == lookup("_dispatch_source_type_timer") && !is_in_libdispatch(caller)) {
        if (!queue) {
            typedef void *(*global_t)(long, unsigned long);
            global_t global = (global_t)lookup("dispatch_get_global_queue");
            queue = global ? global(0, 0) : NULL;
        }
        if (queue) map_set(&timer_sources, source, queue);
    }
    return source;
}

/// The queue of `source`'s handler when it is a timer source of this process, else NULL.
static void *timer_queue(void *source) {
    if (!source || !installed()) return NULL;
    return map_get(&timer_sources, source, NULL);
}

void dispatch_source_set_timer(void *source, dtime_t start, uint64_t interval, uint64_t leeway) {
    const ctxdebug_dc_hooks *h = installed();
    void *queue = timer_queue(source);
    if (queue && h->timer_set && h->timer_set(source, queue, start, interval, is_long_deadline(start))) return;
    real_dispatch_source_set_timer()(source, start, interval, leeway);
}

void dispatch_source_set_event_handler(void *source, block_t handler) {
    const ctxdebug_dc_hooks *h = installed();
    void *queue = timer_queue(source);
    if (queue && handler && h->timer_handler) {
        // Kept for the source's life: a repeating timer runs it again and again.
        void *copied = copy_block(handler);
        if (copied) {
            if (h->timer_handler(source, queue, copied, ((struct block_layout *)copied)->invoke)) return;
            drop_block(copied);
        }
    }
    real_dispatch_source_set_event_handler()(source, handler);
}

/// A handler set with `dispatch_source_set_event_handler_f`: it is given the source's context.
struct source_function {
    void *source;
    ctxdebug_dc_function_t function;
};

static void run_source_function(void *raw) {
    struct source_function *handler = raw;
    handler->function(real_dispatch_get_context()(handler->source));
}

void dispatch_source_set_event_handler_f(void *source, ctxdebug_dc_function_t function) {
    const ctxdebug_dc_hooks *h = installed();
    void *queue = timer_queue(source);
    if (queue && function && h->timer_handler) {
        struct source_function *handler = malloc(sizeof *handler);  // kept for the source's life
        if (handler) {
            *handler = (struct source_function){source, function};
            if (h->timer_handler(source, queue, handler, run_source_function)) return;
            free(handler);
        }
    }
    real_dispatch_source_set_event_handler_f()(source, function);
}

void dispatch_source_cancel(void *source) {
    const ctxdebug_dc_hooks *h = installed();
    void *queue = timer_queue(source);
    if (queue && h->timer_cancel) h->timer_cancel(source, queue);
    real_dispatch_source_cancel()(source);  // the real source is cancelled too (its cancel handler runs for real)
}

void dispatch_resume(void *object) {
    const ctxdebug_dc_hooks *h = installed();
    void *queue = timer_queue(object);
    if (queue && h->timer_resume) h->timer_resume(object, queue, 1);
    real_dispatch_resume()(object);  // kept balanced: libdispatch refuses to release a suspended source
}

void dispatch_activate(void *object) {
    const ctxdebug_dc_hooks *h = installed();
    void *queue = timer_queue(object);
    if (queue && h->timer_resume) h->timer_resume(object, queue, 2);
    real_dispatch_activate()(object);
}

void dispatch_suspend(void *object) {
    const ctxdebug_dc_hooks *h = installed();
    void *queue = timer_queue(object);
    if (queue && h->timer_resume) h->timer_resume(object, queue, 0);
    real_dispatch_suspend()(object);
}
