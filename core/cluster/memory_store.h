// The "memory" store type: a key/value space inside this process, shared by
// everyone who opens the same address. For tests and single-process jobs
// whose ranks are threads.
#ifndef STRATA_CORE_CLUSTER_MEMORY_STORE_H_
#define STRATA_CORE_CLUSTER_MEMORY_STORE_H_

#include <memory>

#include "strata/sdk/store_type.h"

namespace strata {

std::unique_ptr<sdk::StoreType> make_memory_store_type();

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_MEMORY_STORE_H_
