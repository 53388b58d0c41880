#include "core/collective/host_key.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

namespace strata {
namespace {

StatusOr<std::string> boot_id(const std::string& proc_root) {
  const std::string path = proc_root + "/sys/kernel/random/boot_id";
  std::ifstream in(path);
  std::string id;
  if (!in || !std::getline(in, id) || id.empty()) {
    return UnavailableError("cannot read " + path +
                            " to tell which host this process runs on; set STRATA_HOST_ID "
                            "to a name shared by the processes of one host");
  }
  return id;
}

StatusOr<std::string> namespace_inode(const std::string& proc_root, const char* kind) {
  const std::string path = proc_root + "/self/ns/" + kind;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return UnavailableError("cannot stat " + path + " (" + std::strerror(errno) +
                            ") to tell which host this process runs on; set STRATA_HOST_ID "
                            "to a name shared by the processes of one host");
  }
  return std::to_string(static_cast<unsigned long long>(st.st_ino));
}

}  // namespace

StatusOr<std::string> host_key_from(const char* override_id, const std::string& proc_root) {
  if (override_id != nullptr && override_id[0] != '\0') {
    std::string id = override_id;
    // The key travels as one line of the team's fingerprint.
    std::replace(id.begin(), id.end(), '\n', ' ');
    return "id:" + id;
  }
  STRATA_ASSIGN_OR_RETURN(std::string boot, boot_id(proc_root));
  STRATA_ASSIGN_OR_RETURN(std::string pid_ns, namespace_inode(proc_root, "pid"));
  STRATA_ASSIGN_OR_RETURN(std::string net_ns, namespace_inode(proc_root, "net"));
  return "boot:" + boot + "/pid:" + pid_ns + "/net:" + net_ns;
}

StatusOr<std::string> local_host_key() {
  return host_key_from(std::getenv("STRATA_HOST_ID"), "/proc");
}

std::vector<int> number_hosts(const std::vector<std::string>& keys_by_rank) {
  std::map<std::string, int> index_of;
  std::vector<int> hosts;
  hosts.reserve(keys_by_rank.size());
  for (const std::string& key : keys_by_rank) {
    const int next = static_cast<int>(index_of.size());
    hosts.push_back(index_of.try_emplace(key, next).first->second);
  }
  return hosts;
}

}  // namespace strata
