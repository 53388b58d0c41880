// Whether a peer process is still there to finish a call: read from
// /proc/<pid>/stat, which also tells a process that died but was not yet
// reaped (a zombie: kill(pid, 0) still succeeds for it) and one stopped by
// SIGSTOP or a debugger. A few microseconds: callers ask only after their
// waits stopped spinning.
#ifndef STRATA_PLUGINS_SHM_PEER_LIVENESS_H_
#define STRATA_PLUGINS_SHM_PEER_LIVENESS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace strata::shm {

enum class PeerLiveness { kRunning, kDead, kStopped };

PeerLiveness peer_liveness(pid_t pid);

// "rank 2 (pid 1234)": how every shm message names a rank.
std::string rank_and_pid(int rank, int64_t pid);

// "died" / "is stopped (SIGSTOP or a debugger)"; empty while the peer runs.
std::string peer_state(pid_t pid);

// rank_and_pid + " " + peer_state, "rank 2 (pid 1234) died"; empty while
// the peer runs.
std::string peer_trouble(int rank, pid_t pid);

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_PEER_LIVENESS_H_
