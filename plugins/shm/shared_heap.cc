#include "shared_heap.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <new>
#include <string>

#include "strata/sdk/error.h"

namespace strata::shm {
namespace {

constexpr uint64_t kHeapPage = 4096;

std::string heap_errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

SharedHeap& SharedHeap::instance() {
  // Never destroyed, since the device table's free may come after static
  // destructors ran in an exiting process; and not on the heap, where it
  // would read as a leak once the plugin is unloaded (its pointer goes
  // with the plugin's memory).
  alignas(SharedHeap) static std::byte storage[sizeof(SharedHeap)];
  static SharedHeap* const heap = new (storage) SharedHeap;
  return *heap;
}

void SharedHeap::forget_if_forked() const {
  const pid_t now = ::getpid();
  if (owner_ == now) return;
  if (owner_ != 0) {
    // The parent's allocations: their addresses are unmapped here, so only
    // the inherited descriptors go (they would keep freed memory alive).
    for (const auto& [start, a] : by_start_) ::close(a.fd);
    by_start_.clear();
  }
  owner_ = now;
}

void* SharedHeap::allocate(uint64_t bytes) {
  const uint64_t mapped = (bytes + kHeapPage - 1) / kHeapPage * kHeapPage;
  const int fd = ::memfd_create("strata-shm-buffer", MFD_CLOEXEC);
  if (fd < 0) {
    const bool out_of_descriptors = errno == EMFILE || errno == ENFILE;
    std::string why = heap_errno_text("shm_host: memfd_create");
    if (out_of_descriptors) {
      why += " (every live shm_host buffer holds a descriptor: raise `ulimit -n`, or free some)";
    }
    throw sdk::Error(STRATA_UNAVAILABLE, why);
  }
  struct stat st {};
  if (::ftruncate(fd, static_cast<off_t>(mapped)) != 0 || ::fstat(fd, &st) != 0) {
    const std::string why = heap_errno_text("shm_host: sizing a buffer of " + std::to_string(bytes) +
                                       " bytes");
    ::close(fd);
    throw sdk::Error(STRATA_OUT_OF_MEMORY, why);
  }
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    const std::string why = heap_errno_text("shm_host: mmap of " + std::to_string(mapped) + " bytes");
    ::close(fd);
    throw sdk::Error(STRATA_OUT_OF_MEMORY, why);
  }
  // Not inherited by a child the training process forks (as the segments).
  ::madvise(p, mapped, MADV_DONTFORK);
  std::lock_guard lock(mu_);
  forget_if_forked();
  by_start_[reinterpret_cast<uintptr_t>(p)] =
      Allocation{next_id_++, static_cast<uint64_t>(st.st_ino), fd, mapped};
  return p;
}

void SharedHeap::free(void* ptr) noexcept {
  if (ptr == nullptr) return;
  std::lock_guard lock(mu_);
  forget_if_forked();
  const auto it = by_start_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == by_start_.end()) return;
  ::munmap(ptr, it->second.bytes);
  ::close(it->second.fd);
  by_start_.erase(it);
  frees_.fetch_add(1, std::memory_order_release);
}

std::optional<Placement> SharedHeap::find(const void* ptr, uint64_t bytes) const {
  const auto at = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard lock(mu_);
  forget_if_forked();
  auto it = by_start_.upper_bound(at);
  if (it == by_start_.begin()) return std::nullopt;
  --it;
  const Allocation& a = it->second;
  const uint64_t offset = at - it->first;
  if (offset > a.bytes || bytes > a.bytes - offset) return std::nullopt;
  return Placement{a.id, a.inode, a.fd, a.bytes, offset, bytes};
}

}  // namespace strata::shm
