// `strata explain OP SIZE`: the selector's candidate list for one call, in
// the order it is walked, with each candidate's source, estimate, measured
// time (when the config names a tuning file) and verdict,
// then the winner and why. No collective runs: selection asks supports() and
// estimate(), and the winner's team_create (a decline there moves on to the
// next candidate), exactly as a call's first use would.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include "tools/strata/cli11.h"

#include "core/collective/tuning_table.h"
#include "core/common/units.h"
#include "tools/strata/cli_common.h"
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
};

// The call being explained, parsed and checked.
struct Call {
  CollectiveKind op = CollectiveKind::kAllReduce;
  DType dtype = DType::kF32;
  ReduceOp redop = ReduceOp::kSum;
  uint64_t bytes = 0;
};

std::string format_estimate(const std::optional<double>& seconds) {
  if (!seconds) return "-";
  char buf[32];
  if (*seconds < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.2f us", *seconds * 1e6);
  } else if (*seconds < 1) {
    std::snprintf(buf, sizeof buf, "%.3f ms", *seconds * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f s", *seconds);
  }
  return buf;
}

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
  nlohmann::json out = {
      {"call", call}, {"team", team}, {"winner", sel.chosen->id}, {"reason", sel.reason}};
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

int run_explain(const ExplainOptions& o) {
  auto call = parse_call(o);
  if (!call.ok()) return report_error("explain", call.status());
  auto runtime = open_runtime(o.config, o.device_type == "cpu" ? o.devices : 0);
  if (!runtime.ok()) return report_error("explain", runtime.status());
  auto ops = open_team(*runtime, o.device_type, o.devices);
  if (!ops.ok()) return report_error("explain", ops.status());

  uint64_t count = 0;
  if (call->op != CollectiveKind::kBarrier) {
    auto counted = count_for_bytes(call->op, call->bytes, call->dtype, o.devices, true);
    if (!counted.ok()) return report_error("explain", counted.status());
    count = *counted;
  }
  auto sel = (*ops)->explain(call->op, call->dtype, count, call->redop, o.in_place, o.root);
  if (!sel.ok()) return report_error("explain", sel.status());

  const std::string what =
      describe_call(call->op, call->bytes, count, call->dtype, call->redop, o.root, o.in_place);
  const std::string team = std::to_string(o.devices) + " " + o.device_type + " device(s) (" +
                           describe_devices(**runtime, (*ops)->team()) + ") in 1 process";
  if (o.json) {
    std::cout << to_json(*sel, what, team).dump(2) << "\n";
    return kExitOk;
  }
  const CollectivesConfig& cc = (*ops)->config();
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
  for (const Candidate& c : sel->candidates) {
    table.add_row({std::to_string(++index), c.algorithm->id, c.source, format_estimate(c.estimate),
                   format_estimate(c.measured), c.verdict});
  }
  table.print(std::cout);
  std::cout << "\nwinner: " << sel->chosen->id << "\nwhy:    " << sel->reason << "\n";
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
  cmd->add_option("--devices", o->devices, "Replicas in the team (local devices)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--device-type", o->device_type, "Device type of the team")
      ->capture_default_str();
  cmd->add_option("--root", o->root, "Root replica of broadcast and reduce")->capture_default_str();
  cmd->add_option("--config", o->config,
                  "YAML config whose rules and implementation apply; default: $STRATA_CONFIG, "
                  "else the built-in defaults");
  cmd->add_flag("--in-place", o->in_place, "Explain the in-place form of the call");
  cmd->add_flag("--json", o->json, "Print one JSON document instead of a table");
  cmd->callback([o, &context] { context.exit_code = run_explain(*o); });
}

}  // namespace strata::cli
