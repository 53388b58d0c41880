// A MultiWorkerMirrored job whose workers are threads: each opens the same
// fresh memory-store space and makes its own strategy over its devices, as
// separate processes would. Shared by the multi-worker tests of this folder.
#ifndef STRATA_TESTS_MULTI_PROCESS_WORKER_THREADS_H_
#define STRATA_TESTS_MULTI_PROCESS_WORKER_THREADS_H_

#include <functional>
#include <memory>

#include "core/runtime/runtime.h"
#include "core/strategy/multi_worker_mirrored_strategy.h"

namespace strata::testing {

// Runs body(strategy) on one thread per worker of a job of `workers`
// workers with `local` CPU devices each (worker w: cpu:w*local ..
// cpu:w*local+local-1 of `rt`, which needs workers*local of them), and
// joins them. A worker whose store or strategy fails records a test
// failure and skips body; the others then fail to form the team within its
// deadline instead of waiting forever.
void run_workers(const std::shared_ptr<Runtime>& rt, int workers, int local,
                 const std::function<void(MultiWorkerMirroredStrategy&)>& body);

}  // namespace strata::testing

#endif  // STRATA_TESTS_MULTI_PROCESS_WORKER_THREADS_H_
