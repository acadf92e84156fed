// StreamCoreShims is header-only (its functions are `static inline`); SwiftPM needs one source
// file to build a C target.
#include "StreamCoreShims.h"
