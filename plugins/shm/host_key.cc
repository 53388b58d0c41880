#include "host_key.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "strata/sdk/error.h"

namespace strata::shm {
namespace {

std::string namespace_inode(const char* path) {
  struct stat st {};
  if (::stat(path, &st) != 0) {
    throw sdk::Error(STRATA_UNAVAILABLE, std::string("shm: cannot read ") + path +
                                             " to tell which host this is: " +
                                             std::strerror(errno) +
                                             " (set STRATA_HOST_ID to name the host)");
  }
  return std::to_string(static_cast<unsigned long long>(st.st_ino));
}

}  // namespace

std::string host_key() {
  if (const char* id = std::getenv("STRATA_HOST_ID"); id != nullptr && *id != '\0') {
    std::string key = std::string("id:") + id;
    for (char& c : key) {
      if (c == ' ' || c == '\n' || c == '\t') c = '_';
    }
    return key;
  }
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string boot_id;
  if (!(boot >> boot_id) || boot_id.empty()) {
    throw sdk::Error(STRATA_UNAVAILABLE,
                     "shm: cannot read /proc/sys/kernel/random/boot_id to tell which host this "
                     "is (set STRATA_HOST_ID to name the host)");
  }
  return boot_id + "/pid:" + namespace_inode("/proc/self/ns/pid") +
         "/net:" + namespace_inode("/proc/self/ns/net");
}

}  // namespace strata::shm
