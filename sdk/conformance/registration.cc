#include "sdk/conformance/registration.h"

#include <fnmatch.h>

#include <algorithm>

#include "core/plugin/registry.h"
#include "sdk/conformance/estimate_case.h"
#include "sdk/conformance/exports_case.h"

namespace strata::conformance {
namespace {

bool selected(const std::string& id, const std::vector<std::string>& globs) {
  if (globs.empty()) return true;
  return std::any_of(globs.begin(), globs.end(), [&](const std::string& g) {
    return g == id || fnmatch(g.c_str(), id.c_str(), 0) == 0;
  });
}

template <class T, class Parse>
std::vector<T> parse_all(const std::vector<std::string>& names, Parse parse,
                         std::span<const T> all) {
  if (names.empty()) return {all.begin(), all.end()};
  std::vector<T> out;
  for (const auto& n : names) out.push_back(*parse(n));  // checked by parse_options
  return out;
}

std::string scope_text(uint32_t scope) {
  std::string s;
  if ((scope & STRATA_SCOPE_LOCAL) != 0) s += "LOCAL ";
  if ((scope & STRATA_SCOPE_CROSS_PROCESS) != 0) s += "CROSS_PROCESS ";
  if ((scope & STRATA_SCOPE_MULTI_DEVICE_PROCESSES) != 0) s += "MULTI_DEVICE_PROCESSES ";
  return s.empty() ? "none " : s;
}

}  // namespace

StatusOr<Registered> register_tests(Suite& suite, Report& report,
                                    const std::vector<std::string>& plugins, std::ostream& log) {
  const SuiteOptions& o = suite.options();
  const Runtime& runtime = *suite.runtime();
  STRATA_ASSIGN_OR_RETURN(const int devices, runtime.device_count(o.device_type));
  Registered out;
  // --processes: one team of every process, one device each.
  const ProcessWorld* world = suite.world();
  const uint32_t scope = world != nullptr ? STRATA_SCOPE_CROSS_PROCESS : STRATA_SCOPE_LOCAL;
  if (world != nullptr) {
    out.world_sizes.push_back(world->world());
    log << "note: " << world->world() << " processes, so world size " << world->world()
        << " (--world-sizes does not apply with --processes)\n";
  }
  for (const int n : world != nullptr ? std::vector<int>{} : o.world_sizes) {
    if (n <= devices) {
      out.world_sizes.push_back(n);
    } else {
      log << "note: world size " << n << " left out: this process has only " << devices << " "
          << o.device_type << " device(s)\n";
    }
  }
  if (out.world_sizes.empty()) {
    return InvalidArgumentError("no world size fits the " + std::to_string(devices) + " " +
                                o.device_type + " device(s) of this process");
  }
  const auto dtypes = parse_all<DType>(o.dtypes, parse_dtype, kAllDTypes);
  const auto redops = parse_all<ReduceOp>(o.redops, parse_reduce_op, kAllReduceOps);

  // Rule 1, once per plugin file: not about any one algorithm, so the
  // plugin's name is the suite.
  for (const PluginRecord& r : runtime.loader().records()) {
    if (r.builtin || r.state != PluginRecord::State::kLoaded) continue;
    if (std::find(plugins.begin(), plugins.end(), r.name) == plugins.end()) continue;
    testing::RegisterTest(r.name.c_str(), ExportsCase::kTestName, nullptr, nullptr, __FILE__,
                          __LINE__, [path = r.path]() -> testing::Test* {
                            return new ExportsCase(path);
                          });
    ++out.tests;
  }

  std::vector<std::string> known;
  for (const AlgorithmEntry* algo : runtime.registry().algorithms()) {
    if (std::find(plugins.begin(), plugins.end(), algo->plugin) == plugins.end()) continue;
    known.push_back(algo->id);
    if (!selected(algo->id, o.algorithms)) continue;
    ++out.matched;
    if ((algo->table.scope & scope) == 0) {
      const std::string why =
          world != nullptr
              ? "scope " + scope_text(algo->table.scope) +
                    "does not cover one device per process; run it without --processes"
              : "scope " + scope_text(algo->table.scope) +
                    "needs several processes; run the suite under a launcher with "
                    "--processes (docs/CONFORMANCE.md)";
      log << "skipped " << algo->id << ": " << why << "\n";
      report.add_skipped_algorithm(algo->id, why);
      continue;
    }
    report.add_algorithm(algo->id);
    out.algorithms.push_back(algo->id);
    CaseSpec spec;
    spec.algorithm = algo->id;
    spec.op = algo->op;
    auto add = [&](const CaseSpec& s) {
      testing::RegisterTest(s.algorithm.c_str(), s.test_name().c_str(), nullptr, nullptr,
                            __FILE__, __LINE__,
                            // testing::Test*, as for the estimate test: GoogleTest
                            // wants one fixture type per suite.
                            [&suite, s]() -> testing::Test* {
                              return new CollectiveCase(suite, s);
                            });
      ++out.tests;
    };
    for (const int n : out.world_sizes) {
      spec.world = n;
      if (algo->table.estimate != nullptr) {
        testing::RegisterTest(algo->id.c_str(), EstimateCase::test_name(n).c_str(), nullptr,
                              nullptr, __FILE__, __LINE__,
                              [&suite, id = algo->id, n]() -> testing::Test* {
                                return new EstimateCase(suite, id, n);
                              });
        ++out.tests;
      }
      if (spec.op == CollectiveKind::kBarrier) {
        add(spec);
        continue;
      }
      for (const uint64_t count : o.counts) {
        spec.count = count;
        for (const DType dtype : dtypes) {
          spec.dtype = dtype;
          std::vector<std::optional<ReduceOp>> ops{std::nullopt};
          if (is_reducing(spec.op)) ops.assign(redops.begin(), redops.end());
          for (const auto& redop : ops) {
            spec.redop = redop;
            // Core treats every empty call as out of place: no in-place twin.
            for (const bool in_place : {true, false}) {
              if (in_place && count == 0) continue;
              spec.in_place = in_place;
              add(spec);
            }
          }
        }
      }
    }
  }
  if (out.matched == 0) {
    std::string list;
    for (const auto& id : known) list += "\n  " + id;
    if (known.empty()) list = " (the plugins registered no algorithm)";
    return NotFoundError(std::string("no algorithm ") +
                         (o.algorithms.empty() ? "to test" : "matches --algorithm") +
                         "; the loaded plugins offer:" + list);
  }
  return out;
}

}  // namespace strata::conformance
