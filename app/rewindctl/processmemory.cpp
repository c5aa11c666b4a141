#include "app/rewindctl/processmemory.h"

#if defined(__GLIBC__) && defined(__linux__)
#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace rw {

void reserveHeap(std::size_t bytes) {
#if defined(__GLIBC__) && defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes == 0)
        return;
    // Large blocks (SQLite's sorters and page caches) from the heap too, and
    // freed memory kept: each mmap or trim would fault its pages in again.
    mallopt(M_MMAP_THRESHOLD, int(bytes / 2));
    mallopt(M_TRIM_THRESHOLD, int(bytes));
    mallopt(M_TOP_PAD, int(bytes));
    const auto before = reinterpret_cast<std::uintptr_t>(sbrk(0));
    // The heap grows once here, by the pad: one region to advise.
    // (volatile: a malloc freed unused may be left out by the compiler)
    void *volatile probe = std::malloc(1 << 20);
    std::free(probe);
    const auto after = reinterpret_cast<std::uintptr_t>(sbrk(0));
    const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const std::uintptr_t from = (before + page - 1) & ~(page - 1);
    if (after > from)
        madvise(reinterpret_cast<void *>(from), after - from,
                MADV_HUGEPAGE); // advice only: a refusal changes nothing
#else
    (void)bytes;
#endif
}

} // namespace rw
