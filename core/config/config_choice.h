// Which config a program runs with: one rule for every Strata program that
// takes a config (train_digits, dense_y_equals_x, strata info/explain/bench,
// strata-mpi-bench, strata-ring-bench), so `strata launch --config FILE`,
// which hands FILE to its workers as STRATA_CONFIG, reaches every worker
// whatever the program (docs/CONFIG.md, "Which config a program loads"):
//
//   1. the program's own --config FILE,
//   2. else the STRATA_CONFIG environment variable (unset or empty: absent),
//   3. else the program's default: a file of its own, or the built-in
//      defaults.
//
// A file chosen by 1 or 2 that is missing or malformed is an error naming
// the path and where it came from; it never falls back to the next source.
#ifndef STRATA_CORE_CONFIG_CONFIG_CHOICE_H_
#define STRATA_CORE_CONFIG_CONFIG_CHOICE_H_

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/status.h"
#include "core/config/config.h"

namespace strata {

inline constexpr char kConfigEnvironmentVariable[] = "STRATA_CONFIG";

enum class ConfigOrigin {
  kFlag,         // the program's --config
  kEnvironment,  // STRATA_CONFIG
  kDefaultFile,  // the program's own default file
  kBuiltIn,      // no file: the documented defaults
};

struct ConfigChoice {
  std::filesystem::path path;  // empty for kBuiltIn
  ConfigOrigin origin = ConfigOrigin::kBuiltIn;
  // What a kFlag file was given by, as its user typed it: a library caller
  // (Python's config= argument) is no command line.
  std::string flag_name = "--config";

  bool from_file() const { return origin != ConfigOrigin::kBuiltIn; }
  // "--config", "STRATA_CONFIG", "the program's default", "built-in defaults"
  std::string_view origin_name() const;
  // "configs/x.yaml (from STRATA_CONFIG)", or "the built-in defaults".
  std::string describe() const;
};

// `flag`: the program's --config value ("" when not given). `default_file`:
// the program's default file, or empty for the built-in defaults.
ConfigChoice choose_config(std::string_view flag, const std::filesystem::path& default_file = {});
// The same with STRATA_CONFIG's value given (nullopt: unset), for tests.
ConfigChoice choose_config(std::string_view flag, const std::filesystem::path& default_file,
                           std::optional<std::string_view> environment);

// Loads the chosen file, or returns `built_in` (its source "<defaults>" when
// unnamed) for kBuiltIn. Errors are prefixed with the origin, e.g.
//   "config given by STRATA_CONFIG: config file '/x.yaml' does not exist".
StatusOr<Config> load_chosen_config(const ConfigChoice& choice, Config built_in = {});

}  // namespace strata

#endif  // STRATA_CORE_CONFIG_CONFIG_CHOICE_H_
