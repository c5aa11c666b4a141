#include "core/util/allocator.h"

#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rw {

void limitAllocatorArenas() {
#if defined(__GLIBC__)
    if (!std::getenv("MALLOC_ARENA_MAX")) // a choice made in the environment stands
        mallopt(M_ARENA_MAX, 2);
#endif
}

} // namespace rw
