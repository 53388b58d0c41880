// The "file" store type: a key/value space in a directory that every process
// of the job can reach (a shared file system for multi-host jobs). Each key
// is one file, written to a temporary name and renamed, so a reader sees a
// whole value or none; `add` holds an flock on "<dir>/.lock" so counters are
// exact across processes. The directory should be fresh for every job: keys
// left by an earlier run would be read as this run's.
#ifndef STRATA_CORE_CLUSTER_FILE_STORE_H_
#define STRATA_CORE_CLUSTER_FILE_STORE_H_

#include <memory>
#include <string>
#include <string_view>

#include "strata/sdk/store_type.h"

namespace strata {

std::unique_ptr<sdk::StoreType> make_file_store_type();

// The file name a key is kept under: [A-Za-z0-9_-] as they are, every other
// byte as %XX (so "..", "/" and names starting with "." never occur); long
// keys are cut and end in a hash of the whole key. Exposed for tests.
std::string file_store_file_name(std::string_view key);

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_FILE_STORE_H_
