#include "core/config/config.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

#include "core/collective/tuning_table.h"
#include "core/common/units.h"
#include "core/config/parameter_server_config.h"
#include "core/config/yaml_reader.h"
#include "core/plugin/registry.h"  // is_valid_name

namespace strata {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 7> kStrategyKinds = {
    "default",         "one_device",       "mirrored", "multi_worker_mirrored",
    "central_storage", "parameter_server", "tpu"};

constexpr std::string_view kNameRule = "names are 1-63 characters of [a-z0-9_]";

std::string join(const std::array<std::string_view, 7>& names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

StatusOr<std::string> read_name(const YamlReader& r, std::string_view what) {
  STRATA_ASSIGN_OR_RETURN(std::string name, r.as_string());
  if (!is_valid_name(name)) {
    return r.error("'" + name + "' is not a valid " + std::string(what) + "; " +
                   std::string(kNameRule));
  }
  return name;
}

StatusOr<std::vector<std::string>> read_names(const YamlReader& r, std::string_view what) {
  STRATA_ASSIGN_OR_RETURN(std::vector<YamlReader> elements, r.items());
  std::vector<std::string> out;
  for (const YamlReader& e : elements) {
    STRATA_ASSIGN_OR_RETURN(std::string name, read_name(e, what));
    out.push_back(std::move(name));
  }
  return out;
}

Status parse_plugins(const YamlReader& r, const fs::path& base_dir, PluginsConfig* out) {
  STRATA_RETURN_IF_ERROR(r.require_map({"path", "enable", "disable", "options"}));
  if (auto paths = r.find("path")) {
    STRATA_ASSIGN_OR_RETURN(std::vector<YamlReader> elements, paths->items());
    for (const YamlReader& e : elements) {
      STRATA_ASSIGN_OR_RETURN(std::string dir, e.as_string());
      if (dir.empty()) return e.expected("a plugin directory");
      // Relative to the file, so a config and its plugins can move together.
      fs::path p(dir);
      out->path.push_back(p.is_absolute() ? p : (base_dir / p).lexically_normal());
    }
  }
  if (auto enable = r.find("enable")) {
    STRATA_ASSIGN_OR_RETURN(out->enable, read_names(*enable, "plugin name"));
  }
  if (auto disable = r.find("disable")) {
    STRATA_ASSIGN_OR_RETURN(std::vector<YamlReader> elements, disable->items());
    for (const YamlReader& e : elements) {
      STRATA_ASSIGN_OR_RETURN(std::string name, read_name(e, "plugin name"));
      // The loader would quietly let disable win; say so instead.
      if (std::find(out->enable.begin(), out->enable.end(), name) != out->enable.end()) {
        return e.error("plugin '" + name + "' is listed in both plugins.enable and "
                       "plugins.disable");
      }
      out->disable.push_back(std::move(name));
    }
  }
  if (auto options = r.find("options")) {
    STRATA_RETURN_IF_ERROR(options->require_map());
    for (const auto& [plugin_key, plugin_options] : options->entries()) {
      STRATA_ASSIGN_OR_RETURN(std::string plugin, read_name(plugin_key, "plugin name"));
      STRATA_RETURN_IF_ERROR(plugin_options.require_map());
      auto& kept = out->options[plugin];
      for (const auto& [key, value] : plugin_options.entries()) {
        STRATA_ASSIGN_OR_RETURN(std::string name, key.as_string());
        // Plugins parse their own values ("4MiB"), so keep the text as written.
        STRATA_ASSIGN_OR_RETURN(kept[name], value.as_string());
      }
    }
  }
  return Status::Ok();
}

Status parse_store_limits(const YamlReader& r, StoreLimits* out) {
  STRATA_RETURN_IF_ERROR(r.get_size("store_max_bytes", &out->max_bytes));
  if (auto keys = r.find("store_max_keys")) {
    STRATA_ASSIGN_OR_RETURN(const int64_t n,
                            keys->as_int(1, std::numeric_limits<int64_t>::max()));
    out->max_keys = static_cast<uint64_t>(n);
  }
  STRATA_RETURN_IF_ERROR(r.get_size("store_max_value", &out->max_value_bytes));
  // Only a value written in the file can be 0: reported at its own place.
  for (const auto& [key, value] : {std::pair{"store_max_bytes", out->max_bytes},
                                   std::pair{"store_max_value", out->max_value_bytes}}) {
    if (value == 0) return r.find(key)->error("must be greater than 0");
  }
  if (out->max_value_bytes > StoreLimits::kProtocolMaxValueBytes) {
    return r.find("store_max_value")->error(
        "at most 16 MiB, the TCP store protocol's limit for one value, got " +
        format_size(out->max_value_bytes));
  }
  return Status::Ok();
}

Status parse_cluster(const YamlReader& r, ClusterConfig* out) {
  STRATA_RETURN_IF_ERROR(r.require_map({"resolver", "store", "rendezvous_timeout", "heartbeat",
                                        "store_max_bytes", "store_max_keys",
                                        "store_max_value"}));
  // Plugins may register resolvers, so only the spelling is checked here.
  if (auto resolver = r.find("resolver")) {
    STRATA_ASSIGN_OR_RETURN(out->resolver,
                            read_name(*resolver, "resolver (auto, tf_config, slurm, mpi, "
                                                 "simple or a plugin's)"));
  }
  if (auto store = r.find("store")) {
    STRATA_ASSIGN_OR_RETURN(std::string text, store->as_string());
    const size_t colon = text.find(':');
    if (text != "auto" && (colon == std::string::npos || colon == 0 ||
                           colon + 1 == text.size() ||
                           !is_valid_name(text.substr(0, colon)))) {
      return store->error("expected 'auto' or <type>:<address> such as tcp:host:29500, "
                          "file:/shared/dir or memory:name, got '" + text + "'");
    }
    out->store = std::move(text);
    out->store_mark = store->mark();
  }
  STRATA_RETURN_IF_ERROR(r.get_duration("rendezvous_timeout", &out->rendezvous_timeout));
  STRATA_RETURN_IF_ERROR(r.get_duration("heartbeat", &out->heartbeat));
  if (out->rendezvous_timeout <= std::chrono::nanoseconds::zero() ||
      out->heartbeat <= std::chrono::nanoseconds::zero()) {
    return r.error("cluster.rendezvous_timeout and cluster.heartbeat must be positive");
  }
  return parse_store_limits(r, &out->store_limits);
}

bool is_device_name(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || !is_valid_name(text.substr(0, colon))) return false;
  const std::string_view index = text.substr(colon + 1);
  return !index.empty() && index.size() <= 9 &&
         std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Status parse_strategy(const YamlReader& r, StrategyConfig* out) {
  STRATA_RETURN_IF_ERROR(r.require_map({"kind", "devices", "parameter_device", "scheme",
                                        "learning_rate", "worker_learning_rates",
                                        "communication_period", "moving_rate", "momentum",
                                        "local_optimizer", "variable_placement", "split_bytes",
                                        "worker_timeout", "request_timeout",
                                        "startup_timeout"}));
  if (auto kind = r.find("kind")) {
    STRATA_ASSIGN_OR_RETURN(std::string k, kind->as_string());
    if (std::find(kStrategyKinds.begin(), kStrategyKinds.end(), k) == kStrategyKinds.end()) {
      return kind->error("unknown strategy '" + k + "'; expected one of: " +
                         join(kStrategyKinds));
    }
    out->kind = std::move(k);
  }
  // Whether the device type exists is the strategy's question, asked once
  // plugins are loaded; here only the spelling.
  if (auto devices = r.find("devices")) {
    STRATA_ASSIGN_OR_RETURN(std::vector<YamlReader> elements, devices->items());
    for (const YamlReader& e : elements) {
      STRATA_ASSIGN_OR_RETURN(std::string device, e.as_string());
      if (!is_device_name(device)) {
        return e.error("expected a device like cpu:0 (type:index), got '" + device + "'");
      }
      out->devices.push_back(std::move(device));
    }
  }
  if (auto p = r.find("parameter_device")) {
    STRATA_ASSIGN_OR_RETURN(std::string device, p->as_string());
    if (!is_device_name(device)) {
      return p->error("expected a device like cpu:0 (type:index), got '" + device + "'");
    }
    out->parameter_device = std::move(device);
  }
  return parse_parameter_server_keys(r, out->kind, &out->parameter_server);
}

// The middle of "plugin/op/name" when the id has exactly three parts.
std::optional<std::string> op_segment(const std::string& id) {
  const size_t a = id.find('/');
  const size_t b = a == std::string::npos ? a : id.find('/', a + 1);
  if (b == std::string::npos || id.find('/', b + 1) != std::string::npos) return std::nullopt;
  if (!is_valid_name(id.substr(0, a)) || !is_valid_name(id.substr(b + 1))) return std::nullopt;
  return id.substr(a + 1, b - a - 1);
}

Status check_algorithm_id(const YamlReader& r, const std::string& id, CollectiveKind* op) {
  const std::optional<std::string> segment = op_segment(id);
  if (!segment) {
    return r.error("expected an algorithm id like hierarchical_copy/all_reduce/ring "
                   "(plugin/op/name), got '" + id + "'");
  }
  auto parsed = parse_collective(*segment);
  if (!parsed.ok()) return r.error("in '" + id + "': " + parsed.status().message());
  *op = *parsed;
  return Status::Ok();
}

StatusOr<CollectiveRule> parse_rule(const YamlReader& r) {
  if (r.is_null()) return r.expected("a rule like {op: all_reduce, use: plugin/op/name}");
  STRATA_RETURN_IF_ERROR(
      r.require_map({"op", "min_bytes", "max_bytes", "dtype", "device_type", "use"}));
  CollectiveRule rule;
  if (auto op = r.find("op")) {
    STRATA_ASSIGN_OR_RETURN(std::string text, op->as_string());
    auto parsed = parse_collective(text);
    if (!parsed.ok()) return op->error(parsed.status().message());
    rule.op = *parsed;
  }
  STRATA_RETURN_IF_ERROR(r.get_size("min_bytes", &rule.min_bytes));
  STRATA_RETURN_IF_ERROR(r.get_size("max_bytes", &rule.max_bytes));
  if (rule.min_bytes > rule.max_bytes) {
    const YamlReader at = r.find("max_bytes").value_or(r);
    return at.error("min_bytes (" + std::to_string(rule.min_bytes) +
                    ") is greater than max_bytes (" + std::to_string(rule.max_bytes) +
                    "); the rule could never match");
  }
  if (auto dtype = r.find("dtype")) {
    STRATA_ASSIGN_OR_RETURN(std::string text, dtype->as_string());
    auto parsed = parse_dtype(text);
    if (!parsed.ok()) return dtype->error(parsed.status().message());
    rule.dtype = *parsed;
  }
  if (auto device_type = r.find("device_type")) {
    STRATA_ASSIGN_OR_RETURN(rule.device_type, read_name(*device_type, "device type"));
  }
  std::optional<YamlReader> use = r.find("use");
  if (!use) {
    return r.error("missing 'use': every rule names the algorithm it picks, "
                   "e.g. use: hierarchical_copy/all_reduce/ring");
  }
  STRATA_ASSIGN_OR_RETURN(rule.use, use->as_string());
  CollectiveKind use_op{};
  STRATA_RETURN_IF_ERROR(check_algorithm_id(*use, rule.use, &use_op));
  if (rule.op && *rule.op != use_op) {
    return use->error("algorithm '" + rule.use + "' implements " +
                      std::string(collective_name(use_op)) + ", but the rule is for op " +
                      std::string(collective_name(*rule.op)));
  }
  rule.mark = use->mark();
  return rule;
}

// Relative paths are to the config file, like plugins.path: a config and
// its tuning file travel together.
Status load_tuning(const YamlReader& r, const fs::path& base_dir, CollectivesConfig* out) {
  STRATA_ASSIGN_OR_RETURN(const std::string text, r.as_string());
  if (text.empty()) return r.expected("the path of a file written by `strata bench --tune`");
  fs::path path(text);
  if (!path.is_absolute()) path = (base_dir / path).lexically_normal();
  auto table = TuningTable::load(path.string());
  if (!table.ok()) return r.error(table.status().message());
  out->tuning = std::make_shared<const TuningTable>(std::move(*table));
  return Status::Ok();
}

Status parse_collectives(const YamlReader& r, const fs::path& base_dir,
                         CollectivesConfig* out) {
  STRATA_RETURN_IF_ERROR(
      r.require_map({"implementation", "timeout", "bytes_per_pack", "rules", "tuning",
                     "hierarchy"}));
  if (auto impl = r.find("implementation")) {
    STRATA_ASSIGN_OR_RETURN(out->implementation, impl->as_string());
    if (out->implementation.empty()) {
      return impl->expected("auto, a plugin, an algorithm name or an algorithm id");
    }
    out->implementation_mark = impl->mark();
  }
  if (auto hierarchy = r.find("hierarchy")) {
    STRATA_ASSIGN_OR_RETURN(out->hierarchy, hierarchy->as_string());
    if (out->hierarchy != "auto" && out->hierarchy != "host" && out->hierarchy != "flat") {
      return hierarchy->error("unknown hierarchy '" + out->hierarchy +
                              "'; expected auto, host or flat");
    }
  }
  STRATA_RETURN_IF_ERROR(r.get_duration("timeout", &out->timeout));
  if (out->timeout <= std::chrono::nanoseconds::zero()) {
    return r.find("timeout")->error("must be greater than 0; a collective needs time to run");
  }
  STRATA_RETURN_IF_ERROR(r.get_size("bytes_per_pack", &out->bytes_per_pack));
  if (auto rules = r.find("rules")) {
    STRATA_ASSIGN_OR_RETURN(std::vector<YamlReader> elements, rules->items());
    for (const YamlReader& e : elements) {
      STRATA_ASSIGN_OR_RETURN(CollectiveRule rule, parse_rule(e));
      out->rules.push_back(std::move(rule));
    }
  }
  if (auto tuning = r.find("tuning")) STRATA_RETURN_IF_ERROR(load_tuning(*tuning, base_dir, out));
  return Status::Ok();
}

Status parse_devices(const YamlReader& r, DevicesConfig* out) {
  STRATA_RETURN_IF_ERROR(r.require_map({"cpu"}));
  std::optional<YamlReader> cpu = r.find("cpu");
  if (!cpu) return Status::Ok();
  STRATA_RETURN_IF_ERROR(cpu->require_map({"count", "memory"}));
  int64_t count = out->cpu_count;
  STRATA_RETURN_IF_ERROR(cpu->get_int("count", 1, 1024, &count));
  out->cpu_count = static_cast<int>(count);
  STRATA_RETURN_IF_ERROR(cpu->get_size("memory", &out->cpu_memory));
  if (out->cpu_memory == 0) return cpu->find("memory")->error("must be greater than 0");
  return Status::Ok();
}

Status parse_document(const YamlReader& root, const fs::path& base_dir, Config* config) {
  if (root.is_null()) {
    return root.error("the config is empty; it needs at least 'strata: 1'");
  }
  // The version comes before key checks: a newer file should be told it is
  // newer, not that its new keys are unknown.
  if (root.require_map().ok()) {
    std::optional<YamlReader> version = root.find("strata");
    if (!version) return root.error("missing 'strata: 1' schema version at the top");
    auto v = version->as_string();
    if (!v.ok() || *v != "1") {
      return version->expected("schema version 1, the only one this build of Strata reads");
    }
  }
  STRATA_RETURN_IF_ERROR(root.require_map(
      {"strata", "plugins", "cluster", "strategy", "collectives", "devices"}));
  config->collectives.implementation_mark = SourceMark{config->source, 0, 0};
  if (auto s = root.find("plugins")) {
    STRATA_RETURN_IF_ERROR(parse_plugins(*s, base_dir, &config->plugins));
  }
  if (auto s = root.find("cluster")) STRATA_RETURN_IF_ERROR(parse_cluster(*s, &config->cluster));
  if (auto s = root.find("strategy")) {
    STRATA_RETURN_IF_ERROR(parse_strategy(*s, &config->strategy));
  }
  if (auto s = root.find("collectives")) {
    STRATA_RETURN_IF_ERROR(parse_collectives(*s, base_dir, &config->collectives));
  }
  if (auto s = root.find("devices")) STRATA_RETURN_IF_ERROR(parse_devices(*s, &config->devices));
  return Status::Ok();
}

}  // namespace

std::string SourceMark::to_string() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

StatusOr<Config> parse_config(std::string_view yaml, std::string_view source_name) {
  Config config;
  config.source = std::string(source_name);
  try {
    STRATA_ASSIGN_OR_RETURN(const YamlReader root, YamlReader::load(yaml, config.source));
    STRATA_RETURN_IF_ERROR(
        parse_document(root, fs::path(config.source).parent_path(), &config));
  } catch (const std::exception& e) {
    // The reader avoids every throwing yaml-cpp call; this is a backstop.
    return InternalError(config.source + ": unexpected error while reading the config: " +
                         e.what());
  }
  return config;
}

StatusOr<std::string> read_text_file(const fs::path& path, std::string_view what) {
  const std::string name = std::string(what) + " '" + path.string() + "'";
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) return NotFoundError(name + " does not exist");
  if (ec) {  // e.g. a directory on the way that we may not search
    return InvalidArgumentError("cannot read " + name + ": " + ec.message());
  }
  // A FIFO or device would block or never end; a directory is a typo.
  if (!fs::is_regular_file(st)) return InvalidArgumentError(name + " is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgumentError("cannot read " + name + ": " + std::strerror(errno));
  // Read in chunks so a failing read (EIO, a vanished NFS file) is an error,
  // not an empty file.
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (in.eof()) break;
  }
  if (in.bad()) return InvalidArgumentError("cannot read " + name + ": " + std::strerror(errno));
  return text;
}

StatusOr<Config> load_config_file(const fs::path& path) {
  STRATA_ASSIGN_OR_RETURN(const std::string text, read_text_file(path, "config file"));
  STRATA_ASSIGN_OR_RETURN(Config config, parse_config(text, path.string()));
  // Pin relative plugin paths now, while the working directory is the one
  // the operator gave the path against.
  std::error_code ec;
  for (fs::path& dir : config.plugins.path) {
    fs::path absolute = fs::absolute(dir, ec);
    if (!ec) dir = absolute.lexically_normal();
  }
  return config;
}

}  // namespace strata
