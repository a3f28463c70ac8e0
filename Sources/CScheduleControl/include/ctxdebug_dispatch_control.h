#ifndef CTXDEBUG_DISPATCH_CONTROL_H
#define CTXDEBUG_DISPATCH_CONTROL_H

// The door between the preload library (libCtxdebugDispatchControl.so, which
// `ctxdebug explore` puts in LD_PRELOAD of the processes it runs) and the schedule
// control (ScheduleControl's DispatchControl.swift). The library replaces libdispatch's
// entry points and forwards each to the real function found with dlsym(RTLD_NEXT, ...)
// until the schedule control installs its hooks, which it does only in a process being
// explored (connected to `ctxdebug explore`, or running the in-process `explore { }`).
// Each hook returns 0 when it does not take the call (the caller is no unit of the run,
// or the run gave up control): the library then calls the real function. This header is
// CScheduleControl's, the C target of ScheduleControl; the library's target depends on
// it, so both sides read one declaration.

#include <stddef.h>
#include <stdint.h>

typedef void (*ctxdebug_dc_function_t)(void *);
typedef void (*ctxdebug_dc_apply_function_t)(void *, size_t);

enum {
    CTXDEBUG_DC_WAIT_SEMAPHORE = 1,
    CTXDEBUG_DC_WAIT_GROUP = 2,
};

enum {
    /// The hook did not take the call: do the real thing.
    CTXDEBUG_DC_NOT_CONTROLLED = 0,
    /// The waiter was woken in the schedule: try the real object again.
    CTXDEBUG_DC_RETRY = 1,
    /// The schedule let the wait's timeout pass (virtual time).
    CTXDEBUG_DC_TIMED_OUT = 2,
};

typedef struct ctxdebug_dc_hooks {
    /// `dispatch_async` and friends: `function(context)` goes on `queue` as a block of the schedule.
    int (*async)(void *queue, void *context, ctxdebug_dc_function_t function, int barrier);
    /// `dispatch_sync`: waits, in the schedule, for `queue`; 1 when the caller then runs the
    /// block (through the real `dispatch_sync_f`) and calls `sync_end`.
    int (*sync_begin)(void *queue, int barrier);
    void (*sync_end)(void *queue);
    /// `dispatch_after`: a timer of virtual time. `is_long` when its delay is over a second
    /// (a watchdog, a test's timeout): it passes only when nothing else can run.
    int (*after)(uint64_t when, int is_long, void *queue, void *context, ctxdebug_dc_function_t function);
    /// `dispatch_group_notify`: `empty` says whether the group has nothing in it now.
    int (*notify)(void *group, int empty, void *queue, void *context, ctxdebug_dc_function_t function);
    /// A wait on a semaphore or group that would block: disables the caller until a wake
    /// (or, when `timed`, until the schedule lets the timeout pass; a timeout over a
    /// second, `timed` 2, passes only when nothing else can run).
    int (*wait)(int kind, void *object, int timed);
    /// A semaphore was signalled, or a group became empty.
    void (*wake)(int kind, void *object);
    /// The caller is about to park in `dispatch_main()` for good.
    int (*main_parks)(void);
    /// `nanosleep` and friends: a yield that lets virtual time pass.
    int (*sleep)(void);
    /// The main thread's run loop is about to wait (XCTest's `wait(for:timeout:)`).
    int (*run_loop_idle)(void);

    // dispatch_apply and timer sources (ControlledScheduler+Primitives.swift).
    /// `dispatch_apply`: each iteration a block of `queue` (NULL: a concurrent queue of
    /// libdispatch's choice); returns 1 once every iteration ran, the caller having waited.
    int (*apply)(uint64_t iterations, void *queue, void *context, ctxdebug_dc_apply_function_t function);
    /// `dispatch_source_set_timer` on a timer source whose handler runs on `queue`.
    int (*timer_set)(void *source, void *queue, uint64_t start, uint64_t interval, int is_long);
    /// `dispatch_source_set_event_handler`: `function(context)` is the handler.
    int (*timer_handler)(void *source, void *queue, void *context, ctxdebug_dc_function_t function);
    /// `dispatch_resume` (`change` 1), `dispatch_suspend` (0), `dispatch_activate` (2) of a timer source.
    int (*timer_resume)(void *source, void *queue, int change);
    /// `dispatch_source_cancel` of a timer source.
    int (*timer_cancel)(void *source, void *queue);

    /// A work item submitted before the hooks were installed ended on the calling thread
    /// (its function returned: a task's job that awaited, a block of the app's launch).
    /// `work` is the token `services.early_work` gave for it.
    void (*early_work_ended)(void *work);

    /// `dispatch_sync` (and its `_f` and barrier kinds) on the main queue from a thread that
    /// is not the main thread, once the caller has the main queue (or, for a context's
    /// `performAndWait`, had it given by the runtime): 1 when the main thread, waiting in
    /// its run loop, ran `function(context)` for the caller, as libdispatch runs such a
    /// block on the main thread; 0 for the real `dispatch_sync`.
    int (*main_sync)(void *context, ctxdebug_dc_function_t function);
} ctxdebug_dc_hooks;

typedef struct ctxdebug_dc_services {
    /// The real `dispatch_async_f`.
    void (*async_f)(void *queue, void *context, ctxdebug_dc_function_t function);
    /// Whether `queue` is a concurrent queue (a global queue, or made with the concurrent attribute).
    int (*is_concurrent)(void *queue);
    const char *(*label)(void *queue);
    void *main_queue;
    /// A global queue that starts a thread for each block it is given (libdispatch's
    /// overcommit root queue). A concurrent queue's blocks start there under control:
    /// their units wait for the baton on their threads, and a width-limited pool (two
    /// threads on two cores) would never start the block the schedule chose.
    void *overcommit_queue;
    /// The queue `queue` targets, as set by `dispatch_queue_create_with_target` or
    /// `dispatch_set_target_queue` (NULL: none was set, its target is a global queue).
    void *(*target_of)(void *queue);
    /// The work item submitted before the hooks were installed that the calling thread
    /// runs now (NULL: none), and the queue it was submitted to.
    void *(*early_work)(void **queue);
} ctxdebug_dc_services;

/// Installs the runtime's hooks (once; later calls are ignored) and fills `services`.
/// Returns 1 when installed. Exported as `ctxdebug_dispatch_control_install_v3`: the
/// suffix is the layout of the two tables above, raised whenever a field is added, so that
/// a runtime and a library of different layouts never meet.
typedef int (*ctxdebug_dc_install_t)(const ctxdebug_dc_hooks *hooks, ctxdebug_dc_services *services);

#endif
