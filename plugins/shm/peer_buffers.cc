#include "peer_buffers.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "strata/sdk/error.h"

namespace strata::shm {
namespace {

// More distinct allocations of one peer than are kept between calls: past
// it the mappings are dropped and made again at the next call, so a peer
// that allocates afresh for every call does not pin all its old memory
// here.
constexpr size_t kMostMappings = 64;

}  // namespace

PeerBuffers::~PeerBuffers() {
  for (Peer& peer : peers_) unmap_all(peer);
}

void PeerBuffers::unmap_all(Peer& peer) {
  for (auto& [id, m] : peer.by_id) ::munmap(m.base, m.bytes);
  peer.by_id.clear();
}

PeerBuffers::Mapping PeerBuffers::map(pid_t pid, const Placement& placed) {
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(placed.fd);
  // Opened for writing so that the mapping can be made writable later
  // (mprotect), mapped read-only until then.
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    throw sdk::Error(STRATA_UNAVAILABLE,
                     "cannot open its shm_host buffer at " + path + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_ino) != placed.inode ||
      static_cast<uint64_t>(st.st_size) < placed.bytes) {
    ::close(fd);
    throw sdk::Error(STRATA_DATA_LOSS, path + " is not the shm_host buffer it published (inode " +
                                           std::to_string(placed.inode) + ", " +
                                           std::to_string(placed.bytes) +
                                           " bytes): was it freed during the call?");
  }
  void* p = ::mmap(nullptr, placed.bytes, PROT_READ, MAP_SHARED, fd, 0);
  const int mmap_errno = errno;
  ::close(fd);
  if (p == MAP_FAILED) {
    throw sdk::Error(STRATA_UNAVAILABLE,
                     "cannot map its shm_host buffer " + path + ": " + std::strerror(mmap_errno));
  }
  ::madvise(p, placed.bytes, MADV_DONTFORK);
  return {static_cast<std::byte*>(p), placed.bytes};
}

void PeerBuffers::begin_call(int rank, uint64_t frees) {
  Peer& peer = peers_[static_cast<size_t>(rank)];
  // Ids are never reused, so a mapping found by id is the right memory;
  // but one of an allocation the peer has freed would keep its memory
  // alive here: after any free, every mapping of that peer is made afresh.
  if (peer.frees != frees || peer.by_id.size() >= kMostMappings) {
    unmap_all(peer);
    peer.frees = frees;
  }
}

const std::byte* PeerBuffers::address(int rank, pid_t pid, const Placement& placed,
                                      uint64_t length) {
  return mapping(rank, pid, placed, length).base + placed.offset;
}

std::byte* PeerBuffers::writable_address(int rank, pid_t pid, const Placement& placed,
                                         uint64_t length) {
  Mapping& m = mapping(rank, pid, placed, length);
  if (!m.writable) {
    if (::mprotect(m.base, m.bytes, PROT_READ | PROT_WRITE) != 0) {
      const int mprotect_errno = errno;
      throw sdk::Error(STRATA_UNAVAILABLE, std::string("cannot write into its shm_host buffer: ") +
                                               std::strerror(mprotect_errno));
    }
    m.writable = true;
  }
  return m.base + placed.offset;
}

PeerBuffers::Mapping& PeerBuffers::mapping(int rank, pid_t pid, const Placement& placed,
                                           uint64_t length) {
  if (placed.id == 0) {
    throw sdk::Error(STRATA_DATA_LOSS, "it published no shm_host buffer for this call");
  }
  if (placed.offset > placed.bytes || length > placed.length ||
      length > placed.bytes - placed.offset) {
    throw sdk::Error(STRATA_DATA_LOSS,
                     "its shm_host buffer holds " + std::to_string(placed.length) +
                         " bytes at offset " + std::to_string(placed.offset) + " of " +
                         std::to_string(placed.bytes) + ", not the " + std::to_string(length) +
                         " this call uses");
  }
  Peer& peer = peers_[static_cast<size_t>(rank)];
  auto it = peer.by_id.find(placed.id);
  if (it == peer.by_id.end()) it = peer.by_id.emplace(placed.id, map(pid, placed)).first;
  return it->second;
}

}  // namespace strata::shm
