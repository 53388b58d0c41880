// A plugin with one deliberate bug per algorithm, written straight against
// the C ABI (no SDK trampolines) so it can also break the rules the SDK
// would hide. The suite's own test runs it and checks that each bug is
// reported as the rule it breaks, and that the one correct algorithm passes.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "strata/abi/plugin.h"
#include "strata/sdk/host_kernels.h"
#include "strata/sdk/types.h"

namespace {

enum class Bug {
  kNone,          // a correct all-reduce: must pass
  kOffByOne,      // one wrong element: rule 10
  kThrows,        // an exception out of post(): rule 2
  kBadStatus,     // a status the ABI does not define: rule 4
  kHangs,         // test() never finishes: rule 7
  kDeclinesF16,   // a correct all-gather that declines f16: declined, not passed
  kScribbles,     // a reduce that zeroes non-root outputs: rule 8
  kOverruns,      // a reduce_scatter that writes one element too many: rule 8
  kBlocks,        // post() never returns, so core's deadline cannot help: rule 7
  kRunsInParts,   // a correct all-reduce through run() (ABI 1.1), left for test(): must pass
  kRunLosesOp,    // run() answers IN_PROGRESS but hands back no operation: rule 4
  kHangsF64,      // a correct all-reduce whose f64 calls never finish: rule 7, then "not run"
  kEstimateNaN,   // a correct all-reduce whose estimate is NaN: rule 5
  kEstimateNegative,  // ... whose estimate is negative: rule 5
  kEstimateDrifts,    // ... whose estimate grows with every call: rule 5
  kEstimateByRank,    // CROSS_PROCESS; its estimate depends on the rank: rule 5
  kLosesStore,  // CROSS_PROCESS; breaks the job's store on rank 0: the rest is "not run"
};

struct Call {
  Bug bug;
  strata_call_t call;
};

size_t bytes_of(const strata_call_t& c, uint64_t count) {
  return count * strata::sdk::dtype_size(c.desc->dtype);
}

void all_reduce(const strata_call_t& c) {
  const uint32_t n = c.desc->team->local_count;
  std::vector<const void*> inputs;
  for (uint32_t i = 0; i < n; ++i) inputs.push_back(c.inputs[i].data);
  strata::sdk::reduce_host(c.desc->dtype, c.desc->redop, c.outputs[0].data, inputs.data(), n,
                           c.desc->count, n);
  for (uint32_t i = 1; i < n; ++i) {
    std::memcpy(c.outputs[i].data, c.outputs[0].data, bytes_of(c, c.desc->count));
  }
}

void all_gather(const strata_call_t& c) {
  const uint32_t n = c.desc->team->local_count;
  const size_t slot = bytes_of(c, c.desc->count);
  for (uint32_t r = 0; r < n; ++r) {
    for (uint32_t s = 0; s < n; ++s) {
      std::memmove(static_cast<char*>(c.outputs[r].data) + s * slot, c.inputs[s].data, slot);
    }
  }
}

void reduce_and_scribble(const strata_call_t& c) {
  const uint32_t n = c.desc->team->local_count;
  std::vector<const void*> inputs;
  for (uint32_t i = 0; i < n; ++i) inputs.push_back(c.inputs[i].data);
  const auto root = static_cast<uint32_t>(c.desc->root);
  strata::sdk::reduce_host(c.desc->dtype, c.desc->redop, c.outputs[root].data, inputs.data(), n,
                           c.desc->count, n);
  for (uint32_t r = 0; r < n; ++r) {
    if (r != root) std::memset(c.outputs[r].data, 0, bytes_of(c, c.desc->count));
  }
}

void reduce_scatter_and_overrun(const strata_call_t& c) {
  const uint32_t n = c.desc->team->local_count;
  const size_t slot = bytes_of(c, c.desc->count);
  for (uint32_t r = 0; r < n; ++r) {
    // In place, output r aliases slot r of input r: list that source first,
    // the one position where the kernel allows a destination to alias.
    std::vector<const void*> slices{static_cast<const char*>(c.inputs[r].data) + r * slot};
    for (uint32_t s = 0; s < n; ++s) {
      if (s != r) slices.push_back(static_cast<const char*>(c.inputs[s].data) + r * slot);
    }
    strata::sdk::reduce_host(c.desc->dtype, c.desc->redop, c.outputs[r].data, slices.data(), n,
                             c.desc->count, n);
  }
  std::memset(static_cast<char*>(c.outputs[0].data) + slot, 0,
              strata::sdk::dtype_size(c.desc->dtype));
}

strata_status_t supports(void* user_data, const strata_call_desc_t* call, strata_message_t msg) {
  if (*static_cast<Bug*>(user_data) == Bug::kDeclinesF16 && call->dtype == STRATA_F16) {
    std::snprintf(msg.data, msg.capacity, "f16 is not offered by this backend");
    return STRATA_NOT_SUPPORTED;
  }
  return STRATA_OK;
}

strata_status_t create(void* user_data, void*, const strata_call_t* call, void** op,
                       strata_message_t) {
  *op = new Call{*static_cast<Bug*>(user_data), *call};
  return STRATA_OK;
}

// The two-process runs' file store (run_two_processes.sh exports where it
// is); kLosesStore is registered only when it is set.
const char* pair_store() { return std::getenv("STRATA_PAIR_STORE"); }

// Replaces the store's directory by a plain file, so that every later set
// or get through it fails: a job store lost in the middle of the run.
void break_pair_store() {
  std::error_code ignored;
  std::filesystem::remove_all(pair_store(), ignored);
  std::ofstream(pair_store()) << "not a directory\n";
}

strata_status_t post(void* op, strata_message_t) {
  const Call& c = *static_cast<Call*>(op);
  if (c.bug == Bug::kLosesStore && c.call.desc->team->process_rank == 0) break_pair_store();
  if (c.call.desc->count == 0 && c.bug != Bug::kThrows && c.bug != Bug::kBadStatus &&
      c.bug != Bug::kBlocks) {
    return STRATA_OK;
  }
  switch (c.bug) {
    case Bug::kNone:
    case Bug::kRunsInParts:
    case Bug::kRunLosesOp:
    case Bug::kHangsF64:
    case Bug::kEstimateNaN:
    case Bug::kEstimateNegative:
    case Bug::kEstimateDrifts:
    case Bug::kEstimateByRank:
    case Bug::kLosesStore: all_reduce(c.call); break;
    case Bug::kOffByOne:
      all_reduce(c.call);
      if (c.call.desc->dtype == STRATA_F32) static_cast<float*>(c.call.outputs[0].data)[0] += 1;
      break;
    case Bug::kThrows: throw std::runtime_error("the backend threw");
    case Bug::kBadStatus: return 42;
    case Bug::kHangs: break;
    case Bug::kDeclinesF16: all_gather(c.call); break;
    case Bug::kScribbles: reduce_and_scribble(c.call); break;
    case Bug::kOverruns: reduce_scatter_and_overrun(c.call); break;
    case Bug::kBlocks: std::this_thread::sleep_for(std::chrono::hours(1)); break;
  }
  return STRATA_OK;
}

strata_status_t test(void* op, strata_message_t) {
  const Call& c = *static_cast<Call*>(op);
  const bool hangs =
      c.bug == Bug::kHangs || (c.bug == Bug::kHangsF64 && c.call.desc->dtype == STRATA_F64);
  return hangs ? STRATA_IN_PROGRESS : STRATA_OK;
}

// A plausible cost model, broken in one way per bug.
strata_status_t estimate(void* user_data, const strata_call_desc_t* call, double* seconds) {
  static std::atomic<int> calls{0};
  const double model = 1e-6 + 1e-9 * static_cast<double>(call->count);
  switch (*static_cast<Bug*>(user_data)) {
    case Bug::kEstimateNaN: *seconds = std::numeric_limits<double>::quiet_NaN(); break;
    case Bug::kEstimateNegative: *seconds = -model; break;
    case Bug::kEstimateDrifts: *seconds = model * (1 + calls.fetch_add(1)); break;
    case Bug::kEstimateByRank: *seconds = model * (1 + call->team->replica_offset); break;
    default: *seconds = model; break;
  }
  return STRATA_OK;
}

void abort_call(void*) {}
void destroy(void* op) { delete static_cast<Call*>(op); }

// ABI 1.1's run(): create and post, then leave the end to core's test()
// loop, so core's hand-over from run() to the rest of the loop is checked.
strata_status_t run(void* user_data, void* team, const strata_call_t* call, int64_t,
                    void** op, strata_message_t msg) {
  *op = nullptr;
  void* created = nullptr;
  if (const strata_status_t s = create(user_data, team, call, &created, msg); s != STRATA_OK) {
    return s;
  }
  if (const strata_status_t s = post(created, msg); s != STRATA_OK) {
    *op = created;  // posted work may be under way: core destroys it and breaks the team
    return s;       // (a real plugin also starts msg with "post: ")
  }
  if (static_cast<Call*>(created)->bug == Bug::kRunLosesOp) {
    destroy(created);
    return STRATA_IN_PROGRESS;
  }
  *op = created;
  return STRATA_IN_PROGRESS;
}

struct Entry {
  const char* name;
  strata_op_t op;
  uint32_t scope;
  Bug bug;
};

// Bugs live here so that user_data stays valid until unload (rule 11).
Entry kEntries[] = {
    {"correct", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, Bug::kNone},
    {"off_by_one", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, Bug::kOffByOne},
    {"throws", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, Bug::kThrows},
    {"bad_status", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, Bug::kBadStatus},
    {"hangs", STRATA_BROADCAST, STRATA_SCOPE_LOCAL, Bug::kHangs},
    {"declines_f16", STRATA_ALL_GATHER, STRATA_SCOPE_LOCAL, Bug::kDeclinesF16},
    {"scribbles", STRATA_REDUCE, STRATA_SCOPE_LOCAL, Bug::kScribbles},
    {"overruns", STRATA_REDUCE_SCATTER, STRATA_SCOPE_LOCAL, Bug::kOverruns},
    {"multi_process", STRATA_ALL_REDUCE, STRATA_SCOPE_CROSS_PROCESS, Bug::kNone},
    {"runs_in_parts", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, Bug::kRunsInParts},
    {"run_loses_op", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, Bug::kRunLosesOp},
    {"hangs_f64", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, Bug::kHangsF64},
    {"estimate_nan", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, Bug::kEstimateNaN},
    {"estimate_negative", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, Bug::kEstimateNegative},
    {"estimate_drifts", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, Bug::kEstimateDrifts},
    {"estimate_by_rank", STRATA_ALL_REDUCE, STRATA_SCOPE_CROSS_PROCESS, Bug::kEstimateByRank},
    {"loses_store", STRATA_ALL_REDUCE, STRATA_SCOPE_CROSS_PROCESS, Bug::kLosesStore},
    // Last: registered only for the watchdog's test, since it ends the run.
    {"blocks_in_post", STRATA_BARRIER, STRATA_SCOPE_LOCAL, Bug::kBlocks},
};

strata_status_t register_all(const strata_registrar_t* registrar, strata_message_t msg) {
  const bool with_blocking = std::getenv("STRATA_FAULTY_BLOCK") != nullptr;
  for (Entry& e : kEntries) {
    if (e.bug == Bug::kBlocks && !with_blocking) continue;
    if (e.bug == Bug::kLosesStore && pair_store() == nullptr) continue;
    strata_algorithm_t t{};
    t.struct_size = sizeof t;
    t.name = e.name;
    t.op = e.op;
    t.scope = e.scope;
    t.description = "deliberately broken, for the conformance suite's own test";
    t.user_data = &e.bug;
    t.supports = supports;
    t.create = create;
    t.post = post;
    t.test = test;
    t.abort = abort_call;
    t.destroy = destroy;
    if (e.bug == Bug::kRunsInParts || e.bug == Bug::kRunLosesOp) t.run = run;
    if (e.bug >= Bug::kEstimateNaN && e.bug <= Bug::kEstimateByRank) t.estimate = estimate;
    const strata_status_t s = registrar->add_algorithm(registrar->ctx, &t, msg);
    if (s != STRATA_OK) return s;
  }
  return STRATA_OK;
}

}  // namespace

extern "C" STRATA_ABI_EXPORT const strata_plugin_info_t* strata_plugin_entry(uint32_t major,
                                                                           uint32_t) {
  static const strata_plugin_info_t info = {
      sizeof(strata_plugin_info_t), STRATA_ABI_MAJOR, STRATA_ABI_MINOR, "faulty", "0.0.1",
      "one deliberate bug per algorithm", register_all, nullptr};
  return major == STRATA_ABI_MAJOR ? &info : nullptr;
}
