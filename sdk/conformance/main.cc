// strata-conformance: loads exactly the plugins named on the command line,
// through the same loader users get, registers one GoogleTest case per
// matrix cell of every algorithm they offer, runs them, and prints the
// per-algorithm summary. docs/CONFORMANCE.md is the user's guide.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "core/runtime/runtime.h"
#include "sdk/conformance/options.h"
#include "sdk/conformance/process_world.h"
#include "sdk/conformance/registration.h"
#include "sdk/conformance/report.h"
#include "sdk/conformance/watchdog.h"

namespace strata::conformance {
namespace {

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

nlohmann::json describe_run(const Runtime& runtime, const SuiteOptions& o,
                            const Registered& registered) {
  nlohmann::json plugins = nlohmann::json::array();
  for (const PluginRecord& r : runtime.loader().records()) {
    if (r.builtin || r.state != PluginRecord::State::kLoaded) continue;
    plugins.push_back({{"name", r.name}, {"version", r.version}, {"path", r.path.string()},
                       {"abi", std::to_string(r.abi_major) + "." + std::to_string(r.abi_minor)}});
  }
  return {{"plugins", plugins},
          {"device_type", o.device_type},
          {"world_sizes", registered.world_sizes},
          {"counts", o.counts},
          {"dtypes", o.dtypes.empty() ? nlohmann::json("all") : nlohmann::json(o.dtypes)},
          {"redops", o.redops.empty() ? nlohmann::json("all") : nlohmann::json(o.redops)},
          {"iterations", o.iterations},
          {"timeout_seconds", static_cast<double>(o.timeout.count()) / 1e3},
          {"tests_registered", registered.tests}};
}

int run(int argc, char** argv) {
  ParseResult parsed = parse_options(argc, argv);
  if (!parsed.run) return parsed.exit_code;
  SuiteOptions& options = parsed.options;
  std::vector<char*> gtest_argv;
  for (std::string& a : options.gtest_args) gtest_argv.push_back(a.data());
  int gtest_argc = static_cast<int>(gtest_argv.size());
  gtest_argv.push_back(nullptr);
  testing::InitGoogleTest(&gtest_argc, gtest_argv.data());

  for (const auto& file : options.plugins) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
      std::cerr << "strata-conformance: --plugin " << file.string() << ": no such file\n";
      return kExitUsage;
    }
  }
  RuntimeOptions runtime_options;
  runtime_options.discover_plugins = false;  // exactly the plugins named, nothing else
  runtime_options.use_environment = false;
  runtime_options.plugin_files = options.plugins;
  auto runtime = Runtime::create(Config{}, runtime_options);
  if (!runtime.ok()) {
    std::cerr << "strata-conformance: " << runtime.status().message() << "\n";
    return kExitUsage;
  }
  // --gtest_list_tests output stays a clean list for scripts.
  std::ostringstream notes;
  std::vector<std::string> plugins;
  notes << "strata-conformance: testing";
  for (const PluginRecord& r : (*runtime)->loader().records()) {
    if (r.builtin || r.state != PluginRecord::State::kLoaded) continue;
    plugins.push_back(r.name);
    notes << " " << r.name << " " << r.version << " (" << r.path.string() << ")";
  }
  notes << " on " << options.device_type << " devices\n";

  // --processes: find the other processes before anything is printed, so
  // that only rank 0 speaks.
  std::unique_ptr<ProcessWorld> world;
  if (options.processes) {
    auto joined = ProcessWorld::join(*runtime, options);
    if (!joined.ok()) {
      std::cerr << "strata-conformance: " << joined.status().message() << "\n";
      return kExitUsage;
    }
    world = std::move(*joined);
    notes << "strata-conformance: " << world->world() << " processes; this is "
          << world->describe() << "\n";
  }
  const int rank = world != nullptr ? world->rank() : 0;
  const bool quiet = rank != 0;
  if (quiet) {
    // Every rank records the same verdicts (ProcessWorld::agree): one copy
    // of the output is enough.
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }

  auto owned_report = std::make_unique<Report>();
  Report& report = *owned_report;
  nlohmann::json header;
  Watchdog watchdog([&](const std::string& what) {
    const std::string message =
        what + " has not returned long after its deadline: the plugin blocks inside a call "
               "core cannot interrupt (create, post, test, wait, run or abort), which violates "
               "rule 7. Stopping; the summary so far follows.";
    std::cerr << "\nFATAL: " << message << std::endl;
    // The main thread is stuck inside the plugin, so the current test stays put.
    if (const auto* info = testing::UnitTest::GetInstance()->current_test_info()) {
      report.add_failure(info->test_suite_name(), info->name(), message);
    }
    report.print(std::cout);
    if (!options.json_file.empty()) {
      header["aborted"] = what + ": hung past its deadline (rule 7)";
      report.write_json(options.json_file, header);
    }
    std::_Exit(kExitFailed);
  });
  ProcessWorld* world_view = world.get();
  auto suite = Suite::create(*runtime, options, watchdog, std::move(world));
  if (!suite.ok()) {
    std::cerr << "strata-conformance: " << suite.status().message() << "\n";
    return kExitUsage;
  }
  auto registered = register_tests(**suite, report, plugins, notes);
  if (!GTEST_FLAG_GET(list_tests) && !quiet) std::cout << notes.str() << std::flush;
  if (!registered.ok()) {
    std::cerr << "strata-conformance: " << registered.status().message() << "\n";
    return kExitUsage;
  }
  header = describe_run(**runtime, options, *registered);
  testing::UnitTest::GetInstance()->listeners().Append(owned_report.release());

  const auto start = std::chrono::steady_clock::now();
  const int gtest_rc = RUN_ALL_TESTS();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (GTEST_FLAG_GET(list_tests)) return gtest_rc;
  if (world_view != nullptr) world_view->leave();
  // A test not run verified nothing: the run did not pass.
  const int status =
      report.failed() > 0 || report.not_run() > 0 || gtest_rc != 0 ? kExitFailed : 0;
  if (quiet) {
    if (status != 0) {
      std::cerr << "strata-conformance rank " << rank << ": " << report.failed()
                << " test(s) failed; rank 0 prints the summary\n";
    }
    return status;
  }

  report.print(std::cout);
  std::cout << "\n" << report.ran() << " test(s) in " << wall << " s; "
            << (report.failed() == 0 ? "no failures" : std::to_string(report.failed()) +
                                                           " FAILED")
            << (report.not_run() == 0 ? "" : ", " + std::to_string(report.not_run()) +
                                                 " not run")
            << "\n";
  if (report.ran() == 0) std::cout << "WARNING: no test ran, so nothing was verified\n";
  if (!options.json_file.empty()) {
    header["wall_seconds"] = wall;
    if (!report.write_json(options.json_file, header)) {
      std::cerr << "strata-conformance: cannot write " << options.json_file << "\n";
      return kExitUsage;
    }
  }
  return status;
}

}  // namespace
}  // namespace strata::conformance

int main(int argc, char** argv) { return strata::conformance::run(argc, argv); }
