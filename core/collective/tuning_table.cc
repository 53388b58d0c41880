#include "core/collective/tuning_table.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/config/config.h"
#include "core/config/yaml_reader.h"

namespace strata {
namespace {

constexpr int64_t kMaxDevices = 1 << 20;

StatusOr<double> parse_microseconds(const YamlReader& r) {
  STRATA_ASSIGN_OR_RETURN(const std::string text, r.as_string());
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
      value <= 0) {
    return r.expected("a time in microseconds greater than 0");
  }
  return value;
}

StatusOr<std::map<uint64_t, double>> parse_times(const YamlReader& r) {
  STRATA_RETURN_IF_ERROR(r.require_map());
  std::map<uint64_t, double> times;
  for (const auto& [key, value] : r.entries()) {
    STRATA_ASSIGN_OR_RETURN(const uint64_t bytes, key.as_size());
    if (bytes == 0) return key.error("a measured size must be greater than 0 bytes");
    // "4096" and "4KiB" are different keys to YAML but the same size here.
    if (times.count(bytes) != 0) {
      return key.error("a second measurement of " + std::to_string(bytes) + " bytes");
    }
    STRATA_ASSIGN_OR_RETURN(times[bytes], parse_microseconds(value));
  }
  if (times.empty()) return r.error("needs at least one 'bytes: microseconds' measurement");
  return times;
}

struct ParsedEntry {
  TuningKey key;
  std::string algorithm;
  std::map<uint64_t, double> times;
};

StatusOr<ParsedEntry> parse_entry(const YamlReader& r) {
  STRATA_RETURN_IF_ERROR(r.require_map(
      {"op", "device_type", "processes", "local_devices", "dtype", "algorithm", "times_us"}));
  for (const char* required : {"op", "device_type", "algorithm", "times_us"}) {
    if (!r.find(required)) return r.error(std::string("missing '") + required + "'");
  }
  ParsedEntry e;
  const YamlReader op = *r.find("op");
  STRATA_ASSIGN_OR_RETURN(const std::string op_name, op.as_string());
  auto kind = parse_collective(op_name);
  if (!kind.ok()) return op.expected("a collective such as all_reduce");
  e.key.op = *kind;
  STRATA_RETURN_IF_ERROR(r.get_string("device_type", &e.key.device_type));
  int64_t processes = 1;
  int64_t local = 1;
  STRATA_RETURN_IF_ERROR(r.get_int("processes", 1, kMaxDevices, &processes));
  STRATA_RETURN_IF_ERROR(r.get_int("local_devices", 1, kMaxDevices, &local));
  e.key.processes = static_cast<int>(processes);
  e.key.local_devices = static_cast<int>(local);
  if (auto dtype = r.find("dtype")) {
    STRATA_ASSIGN_OR_RETURN(const std::string name, dtype->as_string());
    auto parsed = parse_dtype(name);
    if (!parsed.ok()) return dtype->expected("an element type such as f32");
    e.key.dtype = *parsed;
  }
  STRATA_RETURN_IF_ERROR(r.get_string("algorithm", &e.algorithm));
  STRATA_ASSIGN_OR_RETURN(e.times, parse_times(*r.find("times_us")));
  return e;
}

// Log-log interpolation: collective time is close to a power law in size
// between two measured sizes, so this is exact for alpha-free or beta-free
// stretches and close in between.
double interpolate(const std::map<uint64_t, double>& times, uint64_t bytes) {
  auto hi = times.lower_bound(bytes);
  if (hi->first == bytes) return hi->second;
  auto lo = std::prev(hi);
  const double x = std::log(static_cast<double>(bytes));
  const double x0 = std::log(static_cast<double>(lo->first));
  const double x1 = std::log(static_cast<double>(hi->first));
  const double y0 = std::log(lo->second);
  const double y1 = std::log(hi->second);
  return std::exp(y0 + (y1 - y0) * (x - x0) / (x1 - x0));
}

bool brackets(const std::map<uint64_t, double>& times, uint64_t bytes) {
  return !times.empty() && bytes >= times.begin()->first && bytes <= times.rbegin()->first;
}

}  // namespace

std::string TuningKey::to_string() const {
  return std::string(collective_name(op)) + " " + std::string(dtype_name(dtype)) + " on " +
         std::to_string(processes) + " process(es) x " + std::to_string(local_devices) + " " +
         device_type + " device(s)";
}

StatusOr<TuningTable> TuningTable::parse(std::string_view text, std::string file) {
  TuningTable table;
  table.source_ = file;
  try {
    STRATA_ASSIGN_OR_RETURN(const YamlReader root, YamlReader::load(text, std::move(file)));
    if (root.is_null()) return root.error("the tuning file is empty");
    STRATA_RETURN_IF_ERROR(root.require_map({"strata_tuning", "command", "entries"}));
    const auto version = root.find("strata_tuning");
    if (!version) return root.error("missing 'strata_tuning: 1' at the top; is this a tuning file?");
    auto v = version->as_string();
    if (!v.ok() || *v != "1") {
      return version->expected("tuning format 1, the only one this build of Strata reads");
    }
    STRATA_RETURN_IF_ERROR(root.get_string("command", &table.command_));
    if (auto entries = root.find("entries")) {
      STRATA_ASSIGN_OR_RETURN(const std::vector<YamlReader> items, entries->items());
      for (const YamlReader& item : items) {
        STRATA_ASSIGN_OR_RETURN(ParsedEntry e, parse_entry(item));
        auto& algorithms = table.entries_[e.key];
        if (algorithms.count(e.algorithm) != 0) {
          return item.error("a second entry for " + e.algorithm + " on " + e.key.to_string());
        }
        algorithms[e.algorithm] = std::move(e.times);
      }
    }
  } catch (const std::exception& e) {
    return InternalError(table.source_ + ": unexpected error while reading the tuning file: " +
                         e.what());
  }
  return table;
}

StatusOr<TuningTable> TuningTable::load(const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(const std::string text, read_text_file(path, "tuning file"));
  return parse(text, path);
}

const std::map<std::string, TuningTable::Times>* TuningTable::find_shape(
    const TuningKey& key) const {
  if (auto it = entries_.find(key); it != entries_.end()) return &it->second;
  for (const auto& [other, algorithms] : entries_) {
    TuningKey same_but_dtype = key;
    same_but_dtype.dtype = other.dtype;
    if (other == same_but_dtype && dtype_size(other.dtype) == dtype_size(key.dtype)) {
      return &algorithms;
    }
  }
  return nullptr;
}

std::optional<double> TuningTable::lookup(const TuningKey& key, std::string_view algorithm,
                                          uint64_t bytes) const {
  const auto* algorithms = find_shape(key);
  if (algorithms == nullptr) return std::nullopt;
  auto it = algorithms->find(std::string(algorithm));
  if (it == algorithms->end() || !brackets(it->second, bytes)) return std::nullopt;
  return interpolate(it->second, bytes) * 1e-6;
}

bool TuningTable::covers(const TuningKey& key, uint64_t bytes) const {
  const auto* algorithms = find_shape(key);
  if (algorithms == nullptr) return false;
  for (const auto& [name, times] : *algorithms) {
    if (brackets(times, bytes)) return true;
  }
  return false;
}

void TuningTable::set(const TuningKey& key, const std::string& algorithm,
                      std::map<uint64_t, double> times_us) {
  entries_[key][algorithm] = std::move(times_us);
}

std::string TuningTable::to_yaml() const {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "strata_tuning" << YAML::Value << 1;
  if (!command_.empty()) out << YAML::Key << "command" << YAML::Value << command_;
  out << YAML::Key << "entries" << YAML::Value << YAML::BeginSeq;
  for (const auto& [key, algorithms] : entries_) {
    for (const auto& [algorithm, times] : algorithms) {
      out << YAML::BeginMap;
      out << YAML::Key << "op" << YAML::Value << std::string(collective_name(key.op));
      out << YAML::Key << "device_type" << YAML::Value << key.device_type;
      out << YAML::Key << "processes" << YAML::Value << key.processes;
      out << YAML::Key << "local_devices" << YAML::Value << key.local_devices;
      out << YAML::Key << "dtype" << YAML::Value << std::string(dtype_name(key.dtype));
      out << YAML::Key << "algorithm" << YAML::Value << algorithm;
      out << YAML::Key << "times_us" << YAML::Value << YAML::Flow << YAML::BeginMap;
      for (const auto& [bytes, us] : times) {
        std::ostringstream value;
        value.precision(6);
        value << us;
        out << YAML::Key << bytes << YAML::Value << value.str();
      }
      out << YAML::EndMap << YAML::EndMap;
    }
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace strata
