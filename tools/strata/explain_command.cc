// `strata explain OP SIZE`: the selector's candidate list for one call, in
// the order it is walked, with each candidate's source, estimate, measured
// time (when the config names a tuning file) and verdict,
// then the winner and why. No collective runs: selection asks supports() and
// estimate(), and the winner's team_create (a decline there moves on to the
// next candidate), exactly as a call's first use would.
// With --join the process joins the job it is a task of (TF_CONFIG, strata
// launch, mpirun) and explains for the job's team: its hosts, and whether
// the call runs flat or composed by host, with each level's algorithm
// (host_hierarchy.h). team_create needs every rank in a call, so there the
// candidates show supports() and estimates, not team_create's declines.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include "tools/strata/cli11.h"

#include "core/collective/tuning_table.h"
#include "core/common/units.h"
#include "core/cluster/job_team.h"
#include "tools/strata/cli_common.h"
#include "tools/strata/explain_hierarchy.h"
#include "tools/strata/text_table.h"

namespace strata::cli {
namespace {

struct ExplainOptions {
  std::string op;
  std::string size;
  std::string dtype = "f32";
  std::string redop = "sum";
  std::string device_type = "cpu";
  std::string config;
  int devices = 4;
  int root = 0;
  bool in_place = false;
  bool json = false;
  bool join = false;
  bool devices_given = false;
};

// The call being explained, parsed and checked.
struct Call {
  CollectiveKind op = CollectiveKind::kAllReduce;
  DType dtype = DType::kF32;
  ReduceOp redop = ReduceOp::kSum;
  uint64_t bytes = 0;
};

StatusOr<Call> parse_call(const ExplainOptions& o) {
  Call call;
  STRATA_ASSIGN_OR_RETURN(call.op, parse_collective(o.op));
  STRATA_ASSIGN_OR_RETURN(call.dtype, parse_dtype(o.dtype));
  STRATA_ASSIGN_OR_RETURN(call.redop, parse_reduce_op(o.redop));
  if (call.op == CollectiveKind::kBarrier) return call;  // moves no data
  if (o.size.empty()) {
    return InvalidArgumentError("explain " + o.op + " needs a SIZE, e.g. 1MiB, 64KiB or 4096");
  }
  STRATA_ASSIGN_OR_RETURN(call.bytes, parse_size(o.size));
  return call;
}

nlohmann::json to_json(const Selection& sel, const std::string& call, const std::string& team) {
  nlohmann::json out = {{"call", call},
                        {"team", team},
                        {"winner", sel.chosen ? nlohmann::json(sel.chosen->id) : nlohmann::json()},
                        {"reason", sel.reason}};
  out["candidates"] = nlohmann::json::array();
  for (const Candidate& c : sel.candidates) {
    out["candidates"].push_back(
        {{"algorithm", c.algorithm->id},
         {"source", c.source},
         {"estimate_seconds", c.estimate ? nlohmann::json(*c.estimate) : nlohmann::json()},
         {"measured_seconds", c.measured ? nlohmann::json(*c.measured) : nlohmann::json()},
         {"verdict", c.verdict}});
  }
  return out;
}

// "4 processes x 1 cpu device(s) on 2 hosts; this process: rank 1 on host 0
// (ranks 0, 1)".
std::string describe_job_team(const Runtime& runtime, CollectiveOps& ops,
                              const std::string& device_type) {
  const Team& team = ops.team();
  const int rank = team.desc().process_rank;
  const int host = team.host_of(rank);
  std::string ranks;
  for (int r : team.host_members(host)) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  return std::to_string(team.desc().process_count) + " processes x " +
         std::to_string(team.local_count()) + " " + device_type + " device(s) (" +
         describe_devices(runtime, team) + ") on " + std::to_string(team.host_count()) +
         " host(s); this process: rank " + std::to_string(rank) + " on host " +
         std::to_string(host) + " (ranks " + ranks + ")";
}

// Every rank waits for the others to finish explaining before it leaves,
// so the chief, which serves the job's store, is the last to go.
Status leave_together(JobTeam& job) {
  if (job.world() <= 1) return Status::Ok();
  const std::string prefix = "explain/" + std::to_string(job.ops().team().desc().team_id) + "/";
  STRATA_RETURN_IF_ERROR(job.store()->set(prefix + std::to_string(job.rank()), "done"));
  const Deadline deadline = deadline_after(std::chrono::seconds(60));
  for (int r = 0; r < job.world(); ++r) {
    STRATA_RETURN_IF_ERROR(job.store()->get(prefix + std::to_string(r), deadline).status());
  }
  return Status::Ok();
}

int run_explain(const ExplainOptions& o) {
  auto call = parse_call(o);
  if (!call.ok()) return report_error("explain", call.status());
  auto runtime = open_runtime(o.config, o.device_type == "cpu" ? o.devices : 0);
  if (!runtime.ok()) return report_error("explain", runtime.status());
  std::unique_ptr<JobTeam> job;
  std::unique_ptr<CollectiveOps> alone;
  if (o.join) {
    std::vector<std::string> names;
    for (int i = 0; o.devices_given && i < o.devices; ++i) {
      names.push_back(o.device_type + ":" + std::to_string(i));
    }
    auto joined = JobTeam::join(*runtime, names, {}, "strata explain --join");
    if (!joined.ok()) return report_error("explain", joined.status());
    job = std::move(*joined);
  } else {
    auto opened = open_team(*runtime, o.device_type, o.devices);
    if (!opened.ok()) return report_error("explain", opened.status());
    alone = std::move(*opened);
  }
  CollectiveOps& ops = job ? job->ops() : *alone;

  uint64_t count = 0;
  if (call->op != CollectiveKind::kBarrier) {
    auto counted = count_for_bytes(call->op, call->bytes, call->dtype, ops.replica_count(), true);
    if (!counted.ok()) return report_error("explain", counted.status());
    count = *counted;
  }
  auto hierarchy =
      ops.explain_hierarchy(call->op, call->dtype, count, call->redop, o.in_place, o.root);
  if (!hierarchy.ok()) return report_error("explain", hierarchy.status());
  auto sel = ops.explain(call->op, call->dtype, count, call->redop, o.in_place, o.root);
  // Nothing serves the whole team, but the host levels do: show their walk.
  if (!sel.ok() && !hierarchy->compose) return report_error("explain", sel.status());

  const std::string what =
      describe_call(call->op, call->bytes, count, call->dtype, call->redop, o.root, o.in_place);
  const std::string team = job ? describe_job_team(**runtime, ops, o.device_type)
                               : std::to_string(o.devices) + " " + o.device_type +
                                     " device(s) (" + describe_devices(**runtime, ops.team()) +
                                     ") in 1 process";
  const Selection flat = sel.ok() ? *sel : Selection{};
  if (o.json) {
    nlohmann::json out = to_json(flat, what, team);
    if (job) out["hierarchy"] = hierarchy_json(*hierarchy);
    std::cout << out.dump(2) << "\n";
  } else {
    const CollectivesConfig& cc = ops.config();
    std::cout << "call:   " << what << "\n"
              << "team:   " << team << "\n"
              << "config: " << (*runtime)->config().source
              << " (implementation: " << cc.implementation << ", " << cc.rules.size()
              << " rule(s))\n";
    if (cc.tuning) {
      std::cout << "tuning: " << cc.tuning->source() << " (" << cc.tuning->shape_count()
                << " measured shape(s); 'measured' ranks AUTO ahead of 'estimate')\n";
    }
    std::cout << "\n";
    TextTable table({"#", "algorithm", "source", "estimate", "measured", "verdict"});
    table.align_right(0);
    table.align_right(3);
    table.align_right(4);
    int index = 0;
    for (const Candidate& c : flat.candidates) {
      table.add_row({std::to_string(++index), c.algorithm->id, c.source,
                     format_seconds_or_dash(c.estimate), format_seconds_or_dash(c.measured),
                     c.verdict});
    }
    table.print(std::cout);
    if (sel.ok()) {
      std::cout << "\nwinner: " << sel->chosen->id
                << (hierarchy->compose ? " (flat; the call runs composed by host, below)" : "")
                << "\nwhy:    " << sel->reason << "\n";
    } else {
      std::cout << "\nwinner: none for the whole team\n";
    }
    if (job) print_hierarchy(std::cout, *hierarchy);
  }
  std::cout.flush();
  if (job) {
    Status left = leave_together(*job);
    if (!left.ok()) return report_error("explain", left);
  }
  return kExitOk;
}

}  // namespace

void add_explain_command(CLI::App& app, Context& context) {
  auto o = std::make_shared<ExplainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "explain",
      "Show the candidates the selector tries for one call, in order, with source, "
      "estimate and verdict, then the winner and why");
  cmd->add_option("OP", o->op, "Collective: " + collective_names())->required();
  cmd->add_option("SIZE", o->size,
                  "Bytes per replica with units (8B, 64KiB, 1MiB); the whole gathered buffer "
                  "for all_gather and reduce_scatter; not needed for barrier");
  cmd->add_option("--dtype", o->dtype, "Element type: f32 f64 f16 bf16 i32 i64 u8")
      ->capture_default_str();
  cmd->add_option("--redop", o->redop, "Reduction: sum prod min max mean")->capture_default_str();
  cmd->add_option("--devices", o->devices,
                  "Replicas in the team (local devices); with --join, this process's devices "
                  "(default: the job's devices per task, else one)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->each([o](const std::string&) { o->devices_given = true; });
  cmd->add_option("--device-type", o->device_type, "Device type of the team")
      ->capture_default_str();
  cmd->add_option("--root", o->root, "Root replica of broadcast and reduce")->capture_default_str();
  cmd->add_option("--config", o->config,
                  "YAML config whose rules and implementation apply; default: $STRATA_CONFIG, "
                  "else the built-in defaults");
  cmd->add_flag("--in-place", o->in_place, "Explain the in-place form of the call");
  cmd->add_flag("--json", o->json, "Print one JSON document instead of a table");
  cmd->add_flag("--join", o->join,
                "Join the job this process is a task of (TF_CONFIG, strata launch, mpirun) and "
                "explain for the job's team: its hosts and its host composition");
  cmd->callback([o, &context] { context.exit_code = run_explain(*o); });
}

}  // namespace strata::cli
