// Everything CScheduleControl declares is a type or a constant of its header; SwiftPM
// builds a C target from at least one source file.
#include "CScheduleControl.h"
