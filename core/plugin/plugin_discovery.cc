#include "core/plugin/plugin_discovery.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string_view>

#include "core/common/logging.h"

namespace strata {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kPrefix = "libstrata_";
constexpr std::string_view kSuffix = ".so";

std::vector<std::string> split(const char* text, char sep) {
  std::vector<std::string> out;
  if (text == nullptr) return out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, sep)) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

bool is_candidate(const fs::path& p) {
  const std::string file = p.filename().string();
  return file.size() > kPrefix.size() + kSuffix.size() && file.starts_with(kPrefix) &&
         file.ends_with(kSuffix);
}

}  // namespace

std::map<std::string, std::string> plugin_options(const std::string& name,
                                                  const LoaderOptions& options) {
  std::map<std::string, std::string> merged = options.job_settings;
  if (auto own = options.options.find(name); own != options.options.end()) {
    merged.insert(own->second.begin(), own->second.end());  // keeps the job's
  }
  return merged;
}

std::string plugin_name_from_file(const fs::path& p) {
  std::string file = p.filename().string();
  if (is_candidate(p)) {
    return file.substr(kPrefix.size(), file.size() - kPrefix.size() - kSuffix.size());
  }
  return file;
}

std::string plugin_filtered_out(const std::string& name, const LoaderOptions& options) {
  if (options.use_environment) {
    const auto only = split(std::getenv("STRATA_PLUGINS"), ',');
    if (!only.empty() && !contains(only, name)) return "not listed in STRATA_PLUGINS";
    if (contains(split(std::getenv("STRATA_PLUGINS_DISABLE"), ','), name)) {
      return "disabled by STRATA_PLUGINS_DISABLE";
    }
  }
  if (!options.enable.empty() && !contains(options.enable, name)) {
    return "not listed in plugins.enable of the config";
  }
  if (contains(options.disable, name)) return "disabled by plugins.disable in the config";
  return "";
}

std::vector<fs::path> plugin_search_dirs(const fs::path& install_dir,
                                         const LoaderOptions& options) {
  std::vector<fs::path> dirs;
  if (options.use_install_dir) dirs.push_back(install_dir);
  if (options.use_environment) {
    for (const auto& d : split(std::getenv("STRATA_PLUGIN_PATH"), ':')) dirs.emplace_back(d);
  }
  for (const auto& d : options.config_paths) dirs.push_back(d);
  std::vector<fs::path> unique;
  std::set<fs::path> seen;
  for (auto& d : dirs) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(d, ec);
    if (ec) canonical = d;
    if (seen.insert(canonical).second) unique.push_back(canonical);
  }
  return unique;
}

std::vector<fs::path> plugin_candidates(const std::vector<fs::path>& dirs) {
  std::vector<fs::path> all;
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      STRATA_LOG_DEBUG("plugin directory {} does not exist; nothing to load there",
                       dir.string());
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (is_candidate(entry.path())) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // deterministic on every rank
    all.insert(all.end(), files.begin(), files.end());
  }
  return all;
}

}  // namespace strata
