// A test plugin whose algorithms are always first in AUTO (estimate 0) and
// can be told, through its plugin options, to refuse a team in each of the
// ways a real backend does (the mpi plugin outside one MPI world, a
// transport that cannot reach a peer):
//   decline_ranks: "all" or "1,2"   team_create answers NOT_SUPPORTED there
//   fail_ranks: "1"                  team_create fails with UNAVAILABLE there
//   supports_decline_ranks: "1"      supports() declines there (a plugin
//                                    breaking rule 5, which core survives)
// Its operations must never run: create() fails, so a call that reaches
// this plugin after a decline fails loudly. Every reason it gives counts
// the team_create calls it had on that rank of that team, so a test sees
// whether core asked again.
//   declining/all_reduce/first, declining/broadcast/first
//   scope LOCAL and CROSS_PROCESS, host memory
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <tuple>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/plugin.h"

namespace sdk = strata::sdk;

namespace {

// Is `rank` named by the option `key` ("all", or a comma-separated list)?
bool listed(std::string_view key, int rank) {
  const auto value = sdk::Host::option(key);
  if (!value) return false;
  if (*value == "all") return true;
  std::istringstream in(*value);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty() && std::stoi(item) == rank) return true;
  }
  return false;
}

std::mutex g_mu;
// (team id, rank, op) -> team_create calls
std::map<std::tuple<uint64_t, int, strata_op_t>, int> g_team_creates;

class First final : public sdk::Algorithm {
 public:
  explicit First(strata_op_t op)
      : Algorithm("first", op, STRATA_SCOPE_LOCAL | STRATA_SCOPE_CROSS_PROCESS,
                  "test plugin: first in AUTO, refuses teams as its options say") {}

  std::optional<std::string> decline(const strata_call_desc_t& call) const override {
    if (listed("supports_decline_ranks", call.team->process_rank)) {
      return "declining's supports() refuses process rank " +
             std::to_string(call.team->process_rank);
    }
    return std::nullopt;
  }
  std::optional<double> estimate(const strata_call_desc_t&) const override { return 0.0; }

  std::unique_ptr<sdk::TeamState> create_team(const strata_team_desc_t& team) override {
    int calls = 0;
    {
      std::lock_guard lock(g_mu);
      calls = ++g_team_creates[{team.team_id, team.process_rank, op()}];
    }
    const std::string which = " (team_create call " + std::to_string(calls) + " on rank " +
                              std::to_string(team.process_rank) + ")";
    if (listed("fail_ranks", team.process_rank)) {
      throw sdk::Error(STRATA_UNAVAILABLE, "injected team_create failure" + which);
    }
    if (listed("decline_ranks", team.process_rank)) {
      throw sdk::NotSupported("this backend cannot reach its peers" + which);
    }
    return nullptr;
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState*, const strata_call_t&) override {
    throw sdk::Error(STRATA_INTERNAL, "declining/first must never run a call in these tests");
  }
};

void register_declining(sdk::Registrar& r) {
  r.add<First>(STRATA_ALL_REDUCE);
  r.add<First>(STRATA_BROADCAST);
}

}  // namespace

STRATA_PLUGIN("declining", "0.0.1",
              "test plugin: candidates that decline teams at team_create", register_declining)
