#ifndef CSCHEDULECONTROL_H
#define CSCHEDULECONTROL_H

// ScheduleControl's C target (docs/architecture.md): the preload library's hook and
// service tables, which ScheduleControl installs. Imported by ScheduleControl only; the
// preload library (CtxdebugDispatchControl) includes the same tables from here.

#include "ctxdebug_dispatch_control.h"

#endif
