#ifndef CLIBUNWIND_SHIM_H
#define CLIBUNWIND_SHIM_H
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif
