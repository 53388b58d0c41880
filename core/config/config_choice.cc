#include "core/config/config_choice.h"

#include <cstdlib>

#include "core/common/logging.h"

namespace strata {

std::string_view ConfigChoice::origin_name() const {
  switch (origin) {
    case ConfigOrigin::kFlag:
      return flag_name;
    case ConfigOrigin::kEnvironment:
      return kConfigEnvironmentVariable;
    case ConfigOrigin::kDefaultFile:
      return "the program's default";
    case ConfigOrigin::kBuiltIn:
      return "built-in defaults";
  }
  return "?";
}

std::string ConfigChoice::describe() const {
  if (!from_file()) return "the built-in defaults";
  return path.string() + " (from " + std::string(origin_name()) + ")";
}

ConfigChoice choose_config(std::string_view flag, const std::filesystem::path& default_file,
                           std::optional<std::string_view> environment) {
  if (!flag.empty()) return {std::filesystem::path(flag), ConfigOrigin::kFlag};
  // `STRATA_CONFIG= prog` is how a shell unsets it for one command.
  if (environment && !environment->empty()) {
    return {std::filesystem::path(*environment), ConfigOrigin::kEnvironment};
  }
  if (!default_file.empty()) return {default_file, ConfigOrigin::kDefaultFile};
  return {};
}

ConfigChoice choose_config(std::string_view flag, const std::filesystem::path& default_file) {
  const char* value = std::getenv(kConfigEnvironmentVariable);
  return choose_config(flag, default_file,
                       value == nullptr ? std::nullopt : std::optional<std::string_view>(value));
}

StatusOr<Config> load_chosen_config(const ConfigChoice& choice, Config built_in) {
  STRATA_LOG_INFO("config: {}", choice.describe());
  if (!choice.from_file()) {
    if (built_in.source.empty()) built_in.source = "<defaults>";
    return built_in;
  }
  StatusOr<Config> config = load_config_file(choice.path);
  if (!config.ok()) {
    return config.status().prefixed(choice.origin == ConfigOrigin::kDefaultFile
                                        ? std::string("the program's default config")
                                        : "config given by " + std::string(choice.origin_name()));
  }
  return config;
}

}  // namespace strata
