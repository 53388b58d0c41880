// Where a shm_host buffer lies, as a peer needs it to map it: what a rank
// publishes in its segment (segment.h) and its heap finds (shared_heap.h).
#ifndef STRATA_PLUGINS_SHM_PLACEMENT_H_
#define STRATA_PLUGINS_SHM_PLACEMENT_H_

#include <cstdint>

namespace strata::shm {

// The allocation's memfd (fd in the owner, and its inode to tell a reused
// descriptor from the one published), the allocation's size, and the
// buffer's offset and length in it.
struct Placement {
  uint64_t id = 0;      // unique in the owner for its lifetime; 0: none
  uint64_t inode = 0;
  int64_t fd = -1;
  uint64_t bytes = 0;   // of the whole allocation (what a peer maps)
  uint64_t offset = 0;  // of the buffer inside it
  uint64_t length = 0;  // of the buffer
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_PLACEMENT_H_
