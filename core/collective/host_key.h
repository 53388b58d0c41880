// Which host a process runs on, as a key every process of a team publishes
// when the team forms (team_agreement.cc): processes with equal keys share a
// host. Two processes share a host when they can share memory and see each
// other's processes: the same kernel boot (boot_id), the same PID namespace
// and the same network namespace. The network namespace counts because a
// container (or `ip netns exec`) with a network of its own is, to everything
// that connects to it, another machine: transports that bind addresses or
// look up peers by address treat it as one, and a shared-memory transport
// that would span two of them is the one case this key exists to prevent.
// STRATA_HOST_ID, when set and not empty, overrides the detection: a
// scheduler that knows better (two containers that share /dev/shm) or a test
// that stands hosts up on one machine sets it.
#ifndef STRATA_CORE_COLLECTIVE_HOST_KEY_H_
#define STRATA_CORE_COLLECTIVE_HOST_KEY_H_

#include <string>
#include <vector>

#include "core/common/status.h"

namespace strata {

// "id:<STRATA_HOST_ID>" or "boot:<boot_id>/pid:<inode>/net:<inode>". An error
// names the file that could not be read (no /proc: set STRATA_HOST_ID).
StatusOr<std::string> local_host_key();

// The same from explicit sources, for tests: `override_id` as STRATA_HOST_ID,
// `proc_root` in place of "/proc".
StatusOr<std::string> host_key_from(const char* override_id, const std::string& proc_root);

// Host index of every process, given each process's key in rank order:
// hosts are numbered by their lowest process rank, so rank 0's host is 0.
std::vector<int> number_hosts(const std::vector<std::string>& keys_by_rank);

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_HOST_KEY_H_
