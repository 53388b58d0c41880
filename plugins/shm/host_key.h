// Which host this process runs on, as processes that can share memory see
// it: the kernel's boot id plus the inodes of this process's PID and network
// namespaces (a container or `ip netns` host gets a key of its own), or
// STRATA_HOST_ID when it is set. Core fills strata_team_desc_t.host_count
// with the same definition; shm checks it itself when that count is unknown.
#ifndef STRATA_PLUGINS_SHM_HOST_KEY_H_
#define STRATA_PLUGINS_SHM_HOST_KEY_H_

#include <string>

namespace strata::shm {

// Never empty and without spaces; throws sdk::Error when /proc cannot say.
std::string host_key();

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_HOST_KEY_H_
