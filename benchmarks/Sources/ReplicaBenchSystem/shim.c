// The header's functions are inline; SwiftPM wants at least one source file in a C target.
#include "ReplicaBenchSystem.h"
