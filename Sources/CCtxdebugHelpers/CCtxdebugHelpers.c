// Everything CCtxdebugHelpers offers is `static inline` in its header, but for the
// dispatch-bypass count, a thread-local that needs one definition.
#include "CCtxdebugHelpers.h"

_Thread_local int ctxdebug_dispatch_bypass;
