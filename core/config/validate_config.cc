// validate_config: the half of config checking that needs the loaded
// plugins. Parsing already proved every id well formed; this proves each one
// names something registered, and lists what is, since the usual fix is a
// typo or a plugin that was not loaded.
#include <algorithm>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/plugin/registry.h"

namespace strata {
namespace {

std::string join(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void add_unique(std::vector<std::string>* list, const std::string& value) {
  if (std::find(list->begin(), list->end(), value) == list->end()) list->push_back(value);
}

}  // namespace

Status validate_config(const Config& config, const Registry& registry) {
  const CollectivesConfig& c = config.collectives;
  for (size_t i = 0; i < c.rules.size(); ++i) {
    const CollectiveRule& rule = c.rules[i];
    if (registry.find_algorithm(rule.use) != nullptr) continue;
    // List the op's algorithms: the fix is usually a typo among them.
    const size_t a = rule.use.find('/');
    const size_t b = a == std::string::npos ? a : rule.use.find('/', a + 1);
    auto op = parse_collective(b == std::string::npos ? "" : rule.use.substr(a + 1, b - a - 1));
    std::vector<std::string> ids;
    for (const AlgorithmEntry* e : op.ok() ? registry.algorithms_for(*op) : registry.algorithms()) {
      ids.push_back(e->id);
    }
    const std::string listed = op.ok() ? std::string(collective_name(*op)) + " " : "";
    return InvalidArgumentError(rule.mark.to_string() + ": collectives.rules[" +
                                std::to_string(i) + "].use: no algorithm '" + rule.use +
                                "' is registered; registered " + listed +
                                "algorithms: " + join(ids));
  }
  if (c.implementation == "auto") return Status::Ok();
  std::vector<std::string> plugins, names, ids;
  for (const AlgorithmEntry* e : registry.algorithms()) {
    if (c.implementation == e->name || c.implementation == e->plugin ||
        c.implementation == e->id) {
      return Status::Ok();
    }
    add_unique(&plugins, e->plugin);
    add_unique(&names, e->name);
    ids.push_back(e->id);
  }
  std::sort(names.begin(), names.end());
  return InvalidArgumentError(
      c.implementation_mark.to_string() + ": collectives.implementation: '" + c.implementation +
      "' names no registered plugin, algorithm or id; expected auto, a plugin (" +
      join(plugins) + "), an algorithm name (" + join(names) + ") or an id (" + join(ids) + ")");
}

}  // namespace strata
