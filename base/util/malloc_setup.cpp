#include "base/util/malloc_setup.h"

#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace fathom {

bool keep_freed_memory() {
#if defined(__GLIBC__)
  // Setting either threshold turns off glibc's dynamic adjustment of both, so set both. With
  // M_MMAP_MAX 0 no block is mmap()ed; a thread's arena that cannot hold a block retries in the
  // main arena (glibc's arena_get_retry), so large blocks in other threads still succeed.
  return mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1 &&
         mallopt(M_MMAP_MAX, 0) == 1;
#else
  return false;
#endif
}

}  // namespace fathom
