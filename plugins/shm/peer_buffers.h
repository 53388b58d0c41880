// A team's mappings of its peers' shm_host buffers (shared_heap.h): a
// mapped call finds a peer's input or output through the Placement the peer
// published for the call, maps that allocation's memfd through
// /proc/<pid>/fd once, read-only until a call asks to write into it (the
// mapped all-reduce writes its reduced slice into its peers' outputs; a
// stray write into an allocation never written faults instead of
// corrupting the peer's data; once made writable a mapping stays so), and
// reuses the mapping while the peer has freed nothing since.
#ifndef STRATA_PLUGINS_SHM_PEER_BUFFERS_H_
#define STRATA_PLUGINS_SHM_PEER_BUFFERS_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "placement.h"

namespace strata::shm {

class PeerBuffers {
 public:
  explicit PeerBuffers(int ranks) : peers_(static_cast<size_t>(ranks)) {}
  ~PeerBuffers();
  PeerBuffers(const PeerBuffers&) = delete;
  PeerBuffers& operator=(const PeerBuffers&) = delete;

  // Once per call and peer, before its first address(): drops the peer's
  // mappings if it has freed anything since they were made (`frees`, what
  // it published for this call) or if there are more than a call needs.
  // address() never unmaps, so what a call looked up stays valid to its end.
  void begin_call(int rank, uint64_t frees);
  // The address here of the first `length` bytes of the buffer `placed`
  // names in rank `rank` (process `pid`). Throws sdk::Error (UNAVAILABLE:
  // the memfd cannot be opened or mapped; DATA_LOSS: the descriptor is no
  // longer the allocation published, or the buffer is shorter).
  const std::byte* address(int rank, pid_t pid, const Placement& placed, uint64_t length);
  // The same, writable: the mapping (and every address found in it) takes
  // writes from now on.
  std::byte* writable_address(int rank, pid_t pid, const Placement& placed, uint64_t length);

  // Mappings held for `rank`, for tests.
  size_t mapped(int rank) const { return peers_[static_cast<size_t>(rank)].by_id.size(); }

 private:
  struct Mapping {
    std::byte* base;
    uint64_t bytes;
    bool writable = false;
  };
  Mapping& mapping(int rank, pid_t pid, const Placement& placed, uint64_t length);
  struct Peer {
    uint64_t frees = 0;
    std::unordered_map<uint64_t, Mapping> by_id;
  };
  static void unmap_all(Peer& peer);
  static Mapping map(pid_t pid, const Placement& placed);

  std::vector<Peer> peers_;
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_PEER_BUFFERS_H_
