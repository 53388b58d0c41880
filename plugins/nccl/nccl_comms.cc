#include "nccl_comms.h"

#include <chrono>
#include <cstring>

#include "cuda_error.h"
#include "nccl_types.h"
#include "strata/sdk/backoff.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::nccl {
namespace {

// Finalizing waits for this process's own outstanding work; a peer that
// died must not hold team_destroy (and so a Runtime's shutdown) for long.
constexpr int64_t kFinalizeTimeoutNs = 10'000'000'000;
constexpr const char* kIdKey = "nccl/unique_id";

std::string to_hex(const ncclUniqueId& id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : id.internal) {
    const auto b = static_cast<unsigned char>(c);
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

ncclUniqueId from_hex(const std::string& text) {
  ncclUniqueId id{};
  bool ok = text.size() == 2 * sizeof id.internal;
  for (size_t i = 0; ok && i < sizeof id.internal; ++i) {
    const int hi = hex_digit(text[2 * i]);
    const int lo = hex_digit(text[2 * i + 1]);
    ok = hi >= 0 && lo >= 0;
    if (ok) id.internal[i] = static_cast<char>(hi * 16 + lo);
  }
  if (!ok) {
    throw sdk::Error(STRATA_DATA_LOSS,
                     "nccl team_create: the team store's '" + std::string(kIdKey) + "' holds " +
                         std::to_string(text.size()) + " characters, not the " +
                         std::to_string(2 * sizeof id.internal) +
                         " hex digits of an NCCL unique id (another plugin version at rank 0?)");
  }
  return id;
}

// Rank 0 of the team makes the id; the others read it from the store.
ncclUniqueId exchange_id(const strata_team_desc_t& team) {
  ncclUniqueId id{};
  if (team.process_count == 1 || team.process_rank == 0) {
    check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId", nullptr);
    if (team.process_count > 1) sdk::Host::store_set(team.store, kIdKey, to_hex(id));
    return id;
  }
  try {
    return from_hex(sdk::Host::store_get(team.store, kIdKey, team.deadline_ns));
  } catch (const sdk::Error& e) {
    if (e.code() != STRATA_TIMED_OUT) throw;
    throw sdk::Error(STRATA_TIMED_OUT,
                     "nccl team_create: process rank 0 did not publish the NCCL unique id by the "
                     "team's deadline (it died, hangs, or did not create this team): " +
                         std::string(e.what()));
  }
}

}  // namespace

NcclComms::NcclComms(std::shared_ptr<CudaDevices> devices, const strata_team_desc_t& team)
    : cuda_(std::move(devices)), first_rank_(team.replica_offset), nranks_(team.replica_count) {
  if (team.process_count > 1 && team.store == nullptr) {
    throw sdk::Error(STRATA_FAILED_PRECONDITION,
                     "nccl team_create: a team of " + std::to_string(team.process_count) +
                         " processes came without a store to pass the NCCL unique id through");
  }
  for (uint32_t i = 0; i < team.local_count; ++i) {
    const int d = team.local_devices[i].index;
    cuda_->check_index(d, false, "nccl team_create");
    cuda_->stream(d);  // create each context before NCCL does, with our error message
    devices_of_.push_back(d);
  }
  init(team);
}

void NcclComms::init(const strata_team_desc_t& team) {
  const ncclUniqueId id = exchange_id(team);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  comms_.assign(devices_of_.size(), nullptr);
  std::string failure;
  {
    DeviceGuard guard(devices_of_[0]);
    check_nccl(ncclGroupStart(), "ncclGroupStart", nullptr);
    for (size_t i = 0; i < comms_.size() && failure.empty(); ++i) {
      const cudaError_t e = cudaSetDevice(devices_of_[i]);
      if (e != cudaSuccess) {
        failure = "cudaSetDevice(" + std::to_string(devices_of_[i]) + "): " + cuda_error_text(e);
        break;
      }
      const ncclResult_t r =
          ncclCommInitRankConfig(&comms_[i], nranks_, id, rank(i), &config);
      if (r != ncclSuccess && r != ncclInProgress) {
        failure = "ncclCommInitRankConfig(rank " + std::to_string(rank(i)) + " of " +
                  std::to_string(nranks_) + " on cuda:" + std::to_string(devices_of_[i]) +
                  "): " + nccl_error_text(r, nullptr);
      }
    }
    const ncclResult_t end = ncclGroupEnd();  // always: the group must be closed
    if (failure.empty() && end != ncclSuccess && end != ncclInProgress) {
      failure = "ncclGroupEnd after ncclCommInitRankConfig: " + nccl_error_text(end, nullptr);
    }
  }
  if (!failure.empty()) {
    abort("team_create failed");
    throw sdk::Error(STRATA_INTERNAL, "nccl team_create: " + failure);
  }
  wait_ready(team.deadline_ns, "creating the communicators");
}

void NcclComms::wait_ready(int64_t deadline_ns, const std::string& what) {
  sdk::Backoff backoff;
  while (!ready()) {
    if (sdk::Host::now_ns() >= deadline_ns) {
      abort(what + " timed out");
      throw sdk::Error(STRATA_TIMED_OUT,
                       "nccl: " + what + " for NCCL ranks " + std::to_string(first_rank_) + ".." +
                           std::to_string(first_rank_ + static_cast<int>(size()) - 1) + " of " +
                           std::to_string(nranks_) +
                           " did not finish by the deadline; a process of the team did not "
                           "join (died, hangs, or never created this team) or cannot reach "
                           "this one (NCCL_DEBUG=INFO shows NCCL's side)");
    }
    backoff.pause();
  }
}

bool NcclComms::ready() {
  if (broken()) {
    throw sdk::Error(STRATA_FAILED_PRECONDITION,
                     "this team's NCCL communicators were aborted (" + broken_why_ +
                         "); build a new team");
  }
  bool pending = false;
  for (size_t i = 0; i < comms_.size(); ++i) {
    ncclResult_t state = ncclSuccess;
    const ncclResult_t r = ncclCommGetAsyncError(comms_[i], &state);
    const ncclResult_t bad = r != ncclSuccess ? r : state;
    if (bad == ncclInProgress) {
      pending = true;
      continue;
    }
    if (bad == ncclSuccess) continue;
    // Read NCCL's text before the abort frees the communicator.
    const std::string text = nccl_error_text(bad, comms_[i]);
    abort("NCCL reported an error");
    throw sdk::Error(nccl_status(bad), "nccl: NCCL rank " + std::to_string(rank(i)) + " on cuda:" +
                                           std::to_string(devices_of_[i]) + ": " + text);
  }
  return !pending;
}

void NcclComms::abort(const std::string& why) noexcept {
  if (broken_.exchange(true, std::memory_order_acq_rel)) return;
  try {
    broken_why_ = why;
  } catch (...) {
  }
  for (ncclComm_t& c : comms_) {
    if (c != nullptr) (void)ncclCommAbort(c);  // does not wait for peers
    c = nullptr;
  }
}

NcclComms::~NcclComms() {
  if (broken()) return;
  try {
    check_nccl(ncclGroupStart(), "ncclGroupStart", nullptr);
    for (ncclComm_t c : comms_) (void)ncclCommFinalize(c);
    check_nccl(ncclGroupEnd(), "ncclGroupEnd after ncclCommFinalize", nullptr, true);
    wait_ready(sdk::Host::now_ns() + kFinalizeTimeoutNs, "finalizing the communicators");
    for (ncclComm_t c : comms_) (void)ncclCommDestroy(c);
  } catch (const std::exception& e) {
    sdk::Host::log(STRATA_LOG_WARNING, std::string("releasing a team: ") + e.what());
    abort("finalizing failed");
  }
}

std::shared_ptr<NcclComms> CommRegistry::get(const std::shared_ptr<CudaDevices>& devices,
                                             const strata_team_desc_t& team) {
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      it = it->second->comms.expired() && it->second.use_count() == 1 ? entries_.erase(it) : ++it;
    }
    auto& slot = entries_[Key{team.store, team.team_id, team.process_rank}];
    if (slot == nullptr) slot = std::make_shared<Entry>();
    entry = slot;
  }
  std::lock_guard build(entry->build);
  if (auto comms = entry->comms.lock()) return comms;
  auto comms = std::make_shared<NcclComms>(devices, team);
  entry->comms = comms;
  return comms;
}

}  // namespace strata::nccl

