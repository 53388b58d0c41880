#include "sdk/conformance/options.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <iostream>
#include <string_view>

#include "core/common/dtype.h"

namespace strata::conformance {
namespace {

constexpr const char* kFooter = R"(
Every algorithm of every named plugin is tested on teams of the given world
sizes (those larger than the device type's device count are left out), with
every count, dtype, operator, in place and out of place, several calls per
team. A decline (NOT_SUPPORTED) is reported as declined, never as passed.

With --processes the suite is one process of a launch, e.g.
  mpirun -np 4 strata-conformance --plugin libstrata_mpi.so --processes --quick
Each process resolves its rank and the world (--resolver), opens the job's
store (--store), and every test runs on a team of all processes with one
device each: only CROSS_PROCESS algorithms, world size = processes. Rank 0
prints the summary; every rank exits with the same status.

GoogleTest flags pass through, e.g.
  --gtest_filter='hierarchical_copy/all_reduce/*.n4_*'   --gtest_list_tests
Exit status: 0 nothing failed, 1 a test failed, 2 bad usage or a plugin was
refused. docs/CONFORMANCE.md explains the checks and the summary.)";

// Rejects dtype and operator names core would not parse, so a typo is a
// usage error instead of a matrix that silently tests nothing.
std::string check_names(const std::vector<std::string>& names, bool dtypes) {
  for (const auto& n : names) {
    const bool ok = dtypes ? parse_dtype(n).ok() : parse_reduce_op(n).ok();
    if (!ok) return (dtypes ? "unknown dtype '" : "unknown operator '") + n + "'";
  }
  return "";
}

bool is_gtest_flag(std::string_view arg) {
  return arg.starts_with("--gtest_") || arg.starts_with("-gtest_");
}

}  // namespace

ParseResult parse_options(int argc, char** argv) {
  ParseResult result;
  SuiteOptions& o = result.options;
  CLI::App app{"strata-conformance: checks every algorithm of a Strata plugin against a "
               "host reference, through the same loader users get.",
               "strata-conformance"};
  app.footer(kFooter);
  app.allow_extras();
  double timeout_s = 30.0;
  app.add_option("--plugin", o.plugins, "plugin library to load (repeatable)")
      ->required()
      ->type_name("PATH");
  app.add_option("--algorithm", o.algorithms,
                 "only algorithms whose id matches (plugin/op/name, shell globs; repeatable)")
      ->type_name("ID-or-GLOB");
  auto* sizes = app.add_option("--world-sizes", o.world_sizes, "replicas per team")
                    ->delimiter(',')
                    ->type_name("N,N,...")
                    ->check(CLI::PositiveNumber);
  auto* counts = app.add_option("--counts", o.counts, "elements per replica")
                     ->delimiter(',')
                     ->type_name("N,N,...");
  app.add_option("--dtypes", o.dtypes, "only these dtypes (f32 f64 f16 bf16 i32 i64 u8)")
      ->delimiter(',')
      ->type_name("T,T,...");
  app.add_option("--redops", o.redops, "only these operators (sum prod min max mean)")
      ->delimiter(',')
      ->type_name("OP,OP,...");
  app.add_option("--device-type", o.device_type, "device type the teams run on")
      ->capture_default_str();
  app.add_option("--iterations", o.iterations, "calls per test on one team (>= 3)")
      ->check(CLI::Range(3, 1000))
      ->capture_default_str();
  app.add_option("--timeout", timeout_s, "deadline of every call in seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--quick", o.quick,
               "reduced matrix: world sizes 1,3,4,8 and counts 0,7,16411 unless given");
  app.add_option("--json", o.json_file, "also write every result and the summary here")
      ->type_name("FILE");
  app.add_flag("--processes", o.processes,
               "one process of a multi-process run under a launcher (mpirun, strata launch): "
               "tests CROSS_PROCESS algorithms on a team of every process");
  app.add_option("--resolver", o.resolver,
                 "--processes: cluster resolver (auto, tf_config, slurm, mpi, simple, ...)")
      ->capture_default_str();
  app.add_option("--store", o.store,
                 "--processes: job store, auto (TCP hosted by the chief) or TYPE:ADDRESS "
                 "such as file:/tmp/dir or tcp:host:port")
      ->capture_default_str();
  double rendezvous_s = 120.0;
  app.add_option("--rendezvous-timeout", rendezvous_s,
                 "--processes: seconds to wait for every process (store, team formation)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    app.exit(e);
    result.exit_code = 0;
    return result;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    result.exit_code = 2;
    return result;
  }

  o.gtest_args.emplace_back(argv[0]);
  for (const std::string& extra : app.remaining()) {
    if (!is_gtest_flag(extra)) {
      std::cerr << "strata-conformance: unknown argument '" << extra
                << "' (see --help; GoogleTest flags start with --gtest_)\n";
      result.exit_code = 2;
      return result;
    }
    o.gtest_args.push_back(extra);
  }
  for (const auto& error : {check_names(o.dtypes, true), check_names(o.redops, false)}) {
    if (!error.empty()) {
      std::cerr << "strata-conformance: " << error << "\n";
      result.exit_code = 2;
      return result;
    }
  }
  for (const std::string& g : o.gtest_args) {
    if (o.processes && g.find("gtest_shuffle") != std::string::npos) {
      std::cerr << "strata-conformance: --gtest_shuffle cannot be used with --processes: "
                   "every process must run the tests in the same order\n";
      result.exit_code = 2;
      return result;
    }
  }
  o.rendezvous_timeout = std::chrono::milliseconds(static_cast<int64_t>(rendezvous_s * 1e3));
  if (o.quick && sizes->count() == 0) o.world_sizes = kQuickWorldSizes;
  if (o.quick && counts->count() == 0) o.counts = kQuickCounts;
  o.timeout = std::chrono::milliseconds(static_cast<int64_t>(std::ceil(timeout_s * 1e3)));
  result.run = true;
  return result;
}

}  // namespace strata::conformance
