// Everything CCtxdebugHelpers offers is `static inline` in its header; a C target
// needs one source file.
#include "CCtxdebugHelpers.h"
