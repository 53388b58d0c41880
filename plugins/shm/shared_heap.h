// The memory of the "shm_host" device type: every allocation is its own
// anonymous memfd, mapped MAP_SHARED, so the processes of a team can map a
// peer's buffers and copy or reduce straight out of them, the copy a
// segment design spends on staging saved (the mapped algorithms,
// mapped_operation.h). Like the segments, nothing is named in /dev/shm, and
// the memory goes when the last process mapping it exits, however it exits.
//
// One heap per process, shared by every team and device, so a buffer can be
// looked up from the pointer a call passes.
#ifndef STRATA_PLUGINS_SHM_SHARED_HEAP_H_
#define STRATA_PLUGINS_SHM_SHARED_HEAP_H_

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

#include "placement.h"

namespace strata::shm {

class SharedHeap {
 public:
  static SharedHeap& instance();

  // `bytes` (> 0) of zeroed shared memory, 64-byte aligned (page aligned).
  // Throws sdk::Error (OUT_OF_MEMORY, UNAVAILABLE) with errno's text.
  void* allocate(uint64_t bytes);
  // Unmaps and closes; a peer that still maps it keeps the memory until it
  // unmaps. Unknown pointers are ignored (the device table's free is
  // noexcept).
  void free(void* ptr) noexcept;
  // The allocation holding [ptr, ptr + bytes), if one does.
  std::optional<Placement> find(const void* ptr, uint64_t bytes) const;
  // How many allocations were freed so far: a peer whose cached mappings
  // were made at another count drops them (a freed allocation's memory
  // stays alive while anyone maps it).
  uint64_t frees() const { return frees_.load(std::memory_order_acquire); }

 private:
  struct Allocation {
    uint64_t id;
    uint64_t inode;
    int fd;
    uint64_t bytes;
  };
  // A child of fork() inherits the list and the descriptors but not the
  // memory (MADV_DONTFORK): its first look forgets them (under mu_).
  void forget_if_forked() const;

  mutable std::mutex mu_;
  mutable pid_t owner_ = 0;
  mutable std::map<uintptr_t, Allocation> by_start_;
  uint64_t next_id_ = 1;
  std::atomic<uint64_t> frees_{0};
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_SHARED_HEAP_H_
