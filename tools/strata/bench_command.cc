// `strata bench`: nccl-tests for Strata. Sweeps sizes from -b to -e by -f,
// for one algorithm, AUTO, or every algorithm of the op plus AUTO, and
// prints size, count, type, redop, root, time, algbw, busbw (and for
// all_reduce the memory-bound columns), #wrong per row.
#include <algorithm>
#include <charconv>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tools/strata/cli11.h"

#include "core/common/units.h"
#include "core/strategy/device_staging.h"
#include "tools/strata/bench_runner.h"
#include "tools/strata/bench_tuning.h"
#include "tools/strata/cli_common.h"

namespace strata::cli {
namespace {

struct BenchOptions {
  std::string min_bytes = "8B";
  std::string max_bytes = "64MiB";
  uint64_t factor = 2;
  std::string op = "all_reduce";
  std::string algorithm = "auto";
  int devices = 4;
  std::string device_type = "cpu";
  std::string dtype = "f32";
  std::string redop = "sum";
  int root = 0;
  std::string iters = "auto";
  int warmup = 5;
  int max_iters = 5000;
  std::string time_per_size = "200ms";
  bool check = true;
  bool no_check = false;
  std::string json_file;
  std::string csv_file;
  std::string config;
  std::string tune_file;
  bool in_place = false;
  std::string copy_size = "256MiB";
};

// The sweep, parsed and checked before anything is allocated.
struct Sweep {
  BenchCall call;
  std::vector<uint64_t> sizes;
  TimingPolicy timing;
  uint64_t copy_bytes = 0;
};

StatusOr<Sweep> parse_sweep(const BenchOptions& o) {
  Sweep s;
  STRATA_ASSIGN_OR_RETURN(s.call.op, parse_collective(o.op));
  STRATA_ASSIGN_OR_RETURN(s.call.dtype, parse_dtype(o.dtype));
  STRATA_ASSIGN_OR_RETURN(s.call.redop, parse_reduce_op(o.redop));
  s.call.root = o.root;
  s.call.in_place = o.in_place;
  if (o.root < 0 || o.root >= o.devices) {
    return InvalidArgumentError("--root " + std::to_string(o.root) + " is not a replica (0.." +
                                std::to_string(o.devices - 1) + ")");
  }
  STRATA_ASSIGN_OR_RETURN(uint64_t lo, parse_size(o.min_bytes));
  STRATA_ASSIGN_OR_RETURN(uint64_t hi, parse_size(o.max_bytes));
  for (uint64_t bytes : {lo, hi}) {
    STRATA_RETURN_IF_ERROR(
        count_for_bytes(CollectiveKind::kAllReduce, bytes, s.call.dtype, 1, true).status());
  }
  if (lo > hi) {
    return InvalidArgumentError("-b " + o.min_bytes + " is larger than -e " + o.max_bytes);
  }
  if (s.call.op == CollectiveKind::kBarrier) {
    s.sizes = {0};  // a barrier moves no data: one row
  } else {
    for (uint64_t size = lo; size <= hi; size *= o.factor) {
      s.sizes.push_back(size);
      if (size == 0 || size > hi / o.factor) break;
    }
  }
  if (o.iters != "auto") {
    auto [end, ec] =
        std::from_chars(o.iters.data(), o.iters.data() + o.iters.size(), s.timing.iters);
    if (ec != std::errc() || end != o.iters.data() + o.iters.size() || s.timing.iters < 1) {
      return InvalidArgumentError("--iters '" + o.iters + "' is not 'auto' or a count >= 1");
    }
  }
  s.timing.warmup = o.warmup;
  s.timing.max_iters = std::max(o.max_iters, s.timing.min_iters);
  STRATA_ASSIGN_OR_RETURN(auto per_size, parse_duration(o.time_per_size));
  s.timing.target_seconds = std::chrono::duration<double>(per_size).count();
  STRATA_ASSIGN_OR_RETURN(s.copy_bytes, parse_size(o.copy_size));
  return s;
}

// "auto" -> AUTO only; "all" -> every algorithm of the op that can run in
// one process (bench's teams are local: cross-process algorithms would only
// decline), then AUTO; else one id, or a name that is unique among the op's
// algorithms. "" is AUTO.
StatusOr<std::vector<std::string>> resolve_algorithms(const Registry& registry, CollectiveKind op,
                                                      const std::string& spec) {
  const auto candidates = registry.algorithms_for(op);
  if (spec == "auto") return std::vector<std::string>{""};
  std::vector<std::string> ids;
  for (const AlgorithmEntry* a : candidates) {
    if (spec == "all" && (a->table.scope & STRATA_SCOPE_LOCAL) == 0) continue;
    if (spec == "all" || spec == a->id || spec == a->name || spec == a->plugin + "/" + a->name) {
      ids.push_back(a->id);
    }
  }
  if (spec == "all") {
    ids.emplace_back("");
    return ids;
  }
  if (ids.size() == 1) return ids;
  std::string known;
  for (const AlgorithmEntry* a : candidates) known += "\n  " + a->id;
  if (known.empty()) known = " (none registered for " + std::string(collective_name(op)) + ")";
  return InvalidArgumentError(
      "--algorithm '" + spec + "' " + (ids.empty() ? "matches no" : "matches several") + " " +
      std::string(collective_name(op)) + " algorithm(s); use auto, all, or one of:" + known);
}

// Fails before a long sweep rather than after it.
Status check_writable(const std::string& path) {
  if (path.empty()) return Status::Ok();
  std::ofstream probe(path, std::ios::app);
  if (!probe) return UnavailableError("cannot open '" + path + "' for writing");
  return Status::Ok();
}

// The facts every output repeats, before the check and the machine are known.
BenchSetup describe_setup(const BenchOptions& o, const Sweep& sweep,
                          const std::string& command_line, const Runtime& runtime,
                          const std::vector<std::unique_ptr<BenchRunner>>& runners) {
  BenchSetup setup;
  setup.command_line = command_line;
  setup.version = STRATA_CLI_VERSION;
  setup.op = sweep.call.op;
  setup.dtype = sweep.call.dtype;
  setup.redop = sweep.call.redop;
  setup.root = sweep.call.root;
  setup.in_place = sweep.call.in_place;
  setup.check = !o.no_check && sweep.call.op != CollectiveKind::kBarrier;
  setup.device_type = o.device_type;
  for (const auto& d : runners.front()->team().devices()) {
    setup.devices.push_back(runtime.device_name(d));
  }
  const StatusOr<bool> staged = DeviceStaging::needed(runtime, runners.front()->team().devices());
  setup.host_memory = staged.ok() && !*staged;
  for (const auto& r : runners) setup.algorithms.push_back(r->label());
  setup.timing = sweep.timing;
  return setup;
}

// Rounds of timed calls, algorithm after algorithm, so that whatever else
// the machine does is spread over all of them alike.
void time_interleaved(std::vector<std::unique_ptr<BenchRunner>>& runners,
                      std::vector<bool>& active, std::vector<BenchRow>& rows,
                      const BenchCall& call, uint64_t count, ReplicaBuffers& buffers,
                      const TimingPolicy& policy) {
  constexpr int kRounds = 5;
  const bool adaptive = policy.iters <= 0;
  const int total = adaptive ? policy.max_iters : policy.iters;
  const int per_round = std::max(1, (total + kRounds - 1) / kRounds);
  const int min_per_round = std::max(1, (policy.min_iters + kRounds - 1) / kRounds);
  const double seconds = adaptive ? policy.target_seconds / kRounds : 0;
  for (int round = 0; round < kRounds; ++round) {
    for (size_t r = 0; r < runners.size(); ++r) {
      if (!active[r]) continue;
      active[r] = runners[r]->time_round(call, count, buffers, adaptive ? min_per_round : per_round,
                                         per_round, seconds, rows[r]);
    }
  }
}

StatusOr<std::optional<BenchTuning>> open_tuning(const BenchOptions& o, const Sweep& sweep) {
  if (o.tune_file.empty()) return std::optional<BenchTuning>();
  if (o.algorithm == "auto") {
    return InvalidArgumentError(
        "--tune records each algorithm's own time; use it with --algorithm all (or one id), "
        "not auto");
  }
  TuningKey key;
  key.op = sweep.call.op;
  key.device_type = o.device_type;
  key.processes = 1;  // bench's teams are local
  key.local_devices = o.devices;
  key.dtype = sweep.call.dtype;
  STRATA_ASSIGN_OR_RETURN(BenchTuning tuning, BenchTuning::open(o.tune_file, std::move(key)));
  return std::optional<BenchTuning>(std::move(tuning));
}

int run_bench(const BenchOptions& o, const std::string& command_line) {
  auto sweep = parse_sweep(o);
  if (!sweep.ok()) return report_error("bench", sweep.status());
  for (const std::string* path : {&o.json_file, &o.csv_file}) {
    if (Status s = check_writable(*path); !s.ok()) return report_error("bench", s);
  }
  auto tuning = open_tuning(o, *sweep);
  if (!tuning.ok()) return report_error("bench", tuning.status());
  auto runtime = open_runtime(o.config, o.device_type == "cpu" ? o.devices : 0);
  if (!runtime.ok()) return report_error("bench", runtime.status());
  auto ids = resolve_algorithms((*runtime)->registry(), sweep->call.op, o.algorithm);
  if (!ids.ok()) return report_error("bench", ids.status());

  std::vector<std::unique_ptr<BenchRunner>> runners;
  for (const std::string& id : *ids) {
    auto runner = BenchRunner::create(*runtime, o.device_type, o.devices, id);
    if (!runner.ok()) return report_error("bench", runner.status());
    runners.push_back(std::move(*runner));
  }
  std::vector<uint64_t> counts;
  for (uint64_t size : sweep->sizes) {
    counts.push_back(*count_for_bytes(sweep->call.op, size, sweep->call.dtype, o.devices, false));
  }
  std::vector<std::string> left_out;
  if (o.algorithm == "all") {
    std::erase_if(runners, [&](const std::unique_ptr<BenchRunner>& r) {
      const auto why = r->declines_every(sweep->call, counts);
      if (why) left_out.push_back(r->label() + ": " + *why);
      return why.has_value();
    });
  }
  // Before the sweep's buffers exist: the two never need memory at once.
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto copy = measure_copy_bandwidth(sweep->copy_bytes, threads);
  if (!copy.ok()) return report_error("bench", copy.status());
  auto buffers = ReplicaBuffers::allocate(
      (*runtime)->registry(), runners.front()->team(), sweep->call.op, sweep->call.dtype,
      *std::max_element(counts.begin(), counts.end()), sweep->call.in_place);
  if (!buffers.ok()) return report_error("bench", buffers.status());

  BenchSetup setup = describe_setup(o, *sweep, command_line, **runtime, runners);
  std::optional<Pattern> pattern;
  if (setup.check) {
    auto made = Pattern::make(setup.op, setup.dtype, setup.redop, o.devices);
    if (made.ok()) {
      pattern = std::move(*made);
    } else {
      setup.check = false;  // rows say N/A rather than a #wrong nobody measured
      setup.check_note = made.status().message();
    }
  }
  setup.copy = *copy;
  setup.cache_bytes = last_level_cache_bytes();
  setup.left_out = std::move(left_out);

  BenchReport report(setup);
  report.print_header(std::cout);
  Progress progress(static_cast<int>(counts.size() * runners.size()));
  int done = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    progress.show(done += static_cast<int>(runners.size()), format_size(sweep->sizes[i]));
    std::vector<BenchRow> rows(runners.size());
    std::vector<bool> active(runners.size());
    // Every algorithm times the same data: the pattern, freshly written.
    Status prepared = pattern ? buffers->prepare(*pattern, counts[i]) : Status::Ok();
    for (size_t r = 0; r < runners.size(); ++r) {
      if (!prepared.ok()) {
        rows[r].outcome = BenchRow::Outcome::kFailed;
        rows[r].reason = prepared.to_string();
        continue;
      }
      active[r] = runners[r]->begin(sweep->call, counts[i], *buffers, sweep->timing.warmup,
                                    rows[r]);
    }
    time_interleaved(runners, active, rows, sweep->call, counts[i], *buffers, sweep->timing);
    progress.clear();
    for (size_t r = 0; r < runners.size(); ++r) {
      if (active[r]) {
        runners[r]->finish(sweep->call, counts[i], *buffers, pattern ? &*pattern : nullptr,
                           rows[r]);
      }
      compute_bandwidths(setup, rows[r]);
      if (*tuning) {
        (*tuning)->add(rows[r],
                       call_bytes(sweep->call.op, sweep->call.dtype, counts[i], o.devices));
      }
      report.add(std::move(rows[r]), std::cout);
    }
  }
  report.print_summary(std::cout);
  for (const auto& [path, write] : {std::pair{&o.json_file, &BenchReport::write_json},
                                    std::pair{&o.csv_file, &BenchReport::write_csv}}) {
    if (path->empty()) continue;
    if (Status s = (report.*write)(*path); !s.ok()) return report_error("bench", s);
  }
  if (*tuning) {
    if (Status s = (*tuning)->commit(command_line); !s.ok()) return report_error("bench", s);
    std::cout << "# tuning: " << (*tuning)->algorithms() << " algorithm(s) measured, merged into "
              << o.tune_file << " (use it with collectives.tuning)\n";
  }
  return report.failures() > 0 || report.total_wrong() > 0 ? kExitFailure : kExitOk;
}

}  // namespace

void add_bench_command(CLI::App& app, Context& context) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "Measure collectives like nccl-tests: time, algbw, busbw and #wrong per size, "
      "per algorithm; for all_reduce also the fraction of memory bandwidth reached");
  cmd->add_option("-b,--minbytes", o->min_bytes, "Smallest size, with units")
      ->capture_default_str();
  cmd->add_option("-e,--maxbytes", o->max_bytes, "Largest size, with units")->capture_default_str();
  cmd->add_option("-f,--stepfactor", o->factor, "Multiply the size by this between rows")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{2}, uint64_t{1024}));
  cmd->add_option("--op", o->op, "Collective: " + collective_names())->capture_default_str();
  cmd->add_option("--algorithm", o->algorithm,
                  "An algorithm id (or its unique name), auto (the selector's pick), or all "
                  "(every algorithm of the op, then auto)")
      ->capture_default_str();
  cmd->add_option("--devices", o->devices, "Replicas (local devices) in the team")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--device-type", o->device_type, "Device type of the team")
      ->capture_default_str();
  cmd->add_option("--dtype", o->dtype, "Element type: f32 f64 f16 bf16 i32 i64 u8")
      ->capture_default_str();
  cmd->add_option("--redop", o->redop, "Reduction: sum prod min max mean")->capture_default_str();
  cmd->add_option("--root", o->root, "Root replica of broadcast and reduce")->capture_default_str();
  cmd->add_option("-n,--iters", o->iters, "Timed calls per size, or auto (~--time-per-size)")
      ->capture_default_str();
  cmd->add_option("-w,--warmup", o->warmup, "Untimed calls before timing each size")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--time-per-size", o->time_per_size, "Target timed duration with --iters auto")
      ->capture_default_str();
  cmd->add_option("--max-iters", o->max_iters, "Upper bound on timed calls with --iters auto")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--check", o->check,
                "After timing, run once on known data and count wrong elements (the default)");
  cmd->add_flag("--no-check", o->no_check, "Skip that check: #wrong shows N/A");
  cmd->add_option("--json", o->json_file, "Write the header facts and every row as JSON");
  cmd->add_option("--csv", o->csv_file, "Write every row as CSV ('#' lines: header facts)");
  cmd->add_option("--config", o->config,
                  "YAML config (rules steer what auto picks); default: $STRATA_CONFIG, else "
                  "the built-in defaults");
  cmd->add_option("--tune", o->tune_file,
                  "Merge each algorithm's measured medians into this tuning file, which "
                  "collectives.tuning then hands to AUTO");
  cmd->add_flag("--in-place", o->in_place, "Time the in-place form of the call");
  cmd->add_option("--copy-size", o->copy_size,
                  "Bytes memcpy'd to measure this machine's copy bandwidth")
      ->capture_default_str();
  cmd->callback([o, &context] { context.exit_code = run_bench(*o, context.command_line); });
}

}  // namespace strata::cli
