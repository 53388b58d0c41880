#include "core/cluster/resolvers/tf_config_resolver.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cluster/resolvers/json_duplicate_keys.h"

namespace strata {
namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 4> kJobNames = {"chief", "worker", "ps", "evaluator"};
constexpr std::string_view kJobList = "chief, worker, ps, evaluator";
constexpr std::string_view kExample =
    R"({"cluster": {"worker": ["host1:2222", "host2:2222"]}, )"
    R"("task": {"type": "worker", "index": 0}})";
// Task indices beyond this are typos, not clusters.
constexpr uint64_t kMaxIndex = 1 << 20;

// "a number (2222)": the JSON kind and a short rendering of the value.
std::string found(const Json& value) {
  if (value.is_null()) return "null";
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  const std::string kind = value.type_name();
  const bool vowel = kind == "object" || kind == "array";
  return std::string(vowel ? "an " : "a ") + kind + " (" + text + ")";
}

// TF_CONFIG is usually one long line, so a column alone is hard to find:
// the text up to the character the parser stopped at goes with it.
std::string text_before(std::string_view text, size_t end) {
  constexpr size_t kContext = 24;
  end = std::min(end, text.size());
  const size_t start = end > kContext ? end - kContext : 0;
  std::string before(text.substr(start, end - start));
  std::replace_if(
      before.begin(), before.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; },
      ' ');
  return (start > 0 ? "..." : "") + before;
}

StatusOr<Json> parse_json(std::string_view text) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 9: ..."
    std::string what = e.what();
    const size_t tag_end = what.find("] ");
    if (tag_end != std::string::npos) what.erase(0, tag_end + 2);
    return InvalidArgumentError("TF_CONFIG is not valid JSON: " + what + " (stopped at: '" +
                                text_before(text, e.byte) + "')");
  } catch (const Json::exception& e) {
    return InvalidArgumentError("TF_CONFIG is not valid JSON: " + std::string(e.what()));
  }
}

StatusOr<std::string> read_address(const std::string& key, const Json& value) {
  if (!value.is_string()) {
    return InvalidArgumentError("TF_CONFIG: " + key + R"( must be a "host:port" string, got )" +
                                found(value));
  }
  std::string address = value.get<std::string>();
  if (address.empty()) {
    return InvalidArgumentError("TF_CONFIG: " + key +
                                R"( is an empty string; expected "host:port")");
  }
  // JSON lets a string carry "\u0000" and other control characters; no
  // host:port has one, and a NUL would cut the address short wherever it
  // becomes a C string (name lookup), silently dialling another host.
  const auto control = std::find_if(address.begin(), address.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  if (control != address.end()) {
    return InvalidArgumentError(
        "TF_CONFIG: " + key + " holds " + (*control == '\0' ? "a NUL byte" : "a control character") +
        " at offset " + std::to_string(control - address.begin()) + ", got " + found(value) +
        R"(; expected "host:port")");
  }
  return address;
}

// TF also accepts a job as {"index": "host:port"}. Strata needs every
// task's address, so such a map must still cover 0..n-1.
StatusOr<std::vector<std::string>> read_sparse_job(const std::string& key, const Json& tasks) {
  std::map<uint64_t, std::string> by_index;
  for (const auto& [index_text, value] : tasks.items()) {
    uint64_t index = 0;
    const bool digits = !index_text.empty() && index_text.size() < 8 &&
                        index_text.find_first_not_of("0123456789") == std::string::npos;
    if (digits) index = std::stoull(index_text);
    if (!digits || index >= kMaxIndex) {
      return InvalidArgumentError("TF_CONFIG: " + key + " has key '" + index_text +
                                  "'; the keys of a job written as an object are task indices");
    }
    STRATA_ASSIGN_OR_RETURN(by_index[index], read_address(key + "." + index_text, value));
  }
  std::vector<std::string> addresses;
  for (const auto& [index, address] : by_index) {
    if (index != addresses.size()) {
      return InvalidArgumentError("TF_CONFIG: " + key + " has no task " +
                                  std::to_string(addresses.size()) + " but has task " +
                                  std::to_string(index) + "; every task needs an address");
    }
    addresses.push_back(address);
  }
  return addresses;
}

StatusOr<std::vector<std::string>> read_job(const std::string& job, const Json& tasks) {
  const std::string key = "cluster." + job;
  std::vector<std::string> addresses;
  if (tasks.is_array()) {
    for (size_t i = 0; i < tasks.size(); ++i) {
      STRATA_ASSIGN_OR_RETURN(std::string address,
                              read_address(key + "[" + std::to_string(i) + "]", tasks[i]));
      addresses.push_back(std::move(address));
    }
  } else if (tasks.is_object()) {
    STRATA_ASSIGN_OR_RETURN(addresses, read_sparse_job(key, tasks));
  } else {
    return InvalidArgumentError("TF_CONFIG: " + key +
                                R"( must be a list of "host:port" strings, got )" + found(tasks));
  }
  if (addresses.empty()) {
    return InvalidArgumentError("TF_CONFIG: " + key +
                                R"( is empty; list at least one "host:port")");
  }
  return addresses;
}

Status read_cluster(const Json& root, ClusterSpec* spec) {
  auto cluster = root.find("cluster");
  if (cluster == root.end()) {
    return InvalidArgumentError(R"(TF_CONFIG has no "cluster"; expected e.g. )" +
                                std::string(kExample));
  }
  if (!cluster->is_object()) {
    return InvalidArgumentError(
        R"(TF_CONFIG: "cluster" must be an object of job name -> list of "host:port", got )" +
        found(*cluster));
  }
  if (cluster->empty()) {
    return InvalidArgumentError(
        R"(TF_CONFIG: "cluster" has no jobs; list at least one, e.g. "worker": ["host1:2222"])");
  }
  for (const auto& [job, tasks] : cluster->items()) {
    if (std::find(kJobNames.begin(), kJobNames.end(), job) == kJobNames.end()) {
      return InvalidArgumentError("TF_CONFIG: cluster has job '" + job + "', which is not one of " +
                                  std::string(kJobList));
    }
    STRATA_ASSIGN_OR_RETURN(spec->jobs[job], read_job(job, tasks));
  }
  if (spec->jobs.count("chief") != 0 && spec->jobs["chief"].size() > 1) {
    return InvalidArgumentError("TF_CONFIG: cluster.chief has " +
                                std::to_string(spec->jobs["chief"].size()) +
                                " tasks; there can be at most one chief");
  }
  return Status::Ok();
}

StatusOr<int> read_index(const Json& task) {
  auto index = task.find("index");
  if (index == task.end()) return 0;  // TF's default
  if (!index->is_number_unsigned() || index->get<uint64_t>() >= kMaxIndex) {
    return InvalidArgumentError("TF_CONFIG: task.index must be a non-negative integer, got " +
                                found(*index));
  }
  return static_cast<int>(index->get<uint64_t>());
}

Status read_task(const Json& root, ClusterSpec* spec) {
  auto task = root.find("task");
  if (task == root.end()) {
    return InvalidArgumentError(
        R"(TF_CONFIG has no "task"; add "task": {"type": "worker", "index": N} )"
        "to say which task this process is");
  }
  if (!task->is_object()) {
    return InvalidArgumentError(
        R"(TF_CONFIG: "task" must be an object like {"type": "worker", "index": 0}, got )" +
        found(*task));
  }
  auto type = task->find("type");
  if (type == task->end()) {
    return InvalidArgumentError(R"(TF_CONFIG: task has no "type"; expected one of )" +
                                std::string(kJobList));
  }
  if (!type->is_string() ||
      std::find(kJobNames.begin(), kJobNames.end(), type->get<std::string>()) == kJobNames.end()) {
    return InvalidArgumentError("TF_CONFIG: task.type must be one of " + std::string(kJobList) +
                                ", got " + found(*type));
  }
  spec->task_type = type->get<std::string>();
  STRATA_ASSIGN_OR_RETURN(spec->task_index, read_index(*task));
  auto job = spec->jobs.find(spec->task_type);
  if (job == spec->jobs.end()) {
    // As in TF, an evaluator may run outside the cluster: no one dials it.
    if (spec->task_type == "evaluator" && spec->task_index == 0) {
      spec->jobs["evaluator"] = {""};
      return Status::Ok();
    }
    std::string jobs;
    for (const auto& [name, addresses] : spec->jobs) jobs += (jobs.empty() ? "" : ", ") + name;
    return InvalidArgumentError("TF_CONFIG: task.type is '" + spec->task_type +
                                "' but cluster has no job '" + spec->task_type +
                                "' (its jobs: " + jobs + ")");
  }
  const size_t count = job->second.size();
  if (static_cast<size_t>(spec->task_index) >= count) {
    return InvalidArgumentError("TF_CONFIG: task.index " + std::to_string(spec->task_index) +
                                " is out of range: cluster." + spec->task_type + " has " +
                                std::to_string(count) + " task(s), indices 0-" +
                                std::to_string(count - 1));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ClusterSpec> parse_tf_config(std::string_view text) {
  STRATA_ASSIGN_OR_RETURN(Json root, parse_json(text));
  if (std::optional<DuplicateJsonKey> twice = find_duplicate_json_key(text)) {
    return InvalidArgumentError("TF_CONFIG: key '" + twice->key + "' appears twice in " +
                                (twice->object.empty() ? std::string("the top-level object")
                                                       : "'" + twice->object + "'") +
                                "; JSON keys must be unique (the second would silently replace "
                                "the first)");
  }
  if (!root.is_object()) {
    return InvalidArgumentError("TF_CONFIG must be a JSON object such as " + std::string(kExample) +
                                ", got " + found(root));
  }
  ClusterSpec spec;
  spec.source = "TF_CONFIG";
  spec.resolver = "tf_config";
  STRATA_RETURN_IF_ERROR(read_cluster(root, &spec));
  STRATA_RETURN_IF_ERROR(read_task(root, &spec));
  // Other keys ("environment", Vertex AI's "job") are TF's or the
  // platform's business, so they are left alone, as TF does.
  if (auto rpc = root.find("rpc_layer"); rpc != root.end() && !rpc->is_null()) {
    if (!rpc->is_string()) {
      return InvalidArgumentError(
          R"(TF_CONFIG: "rpc_layer" must be a string such as "grpc", got )" + found(*rpc));
    }
    spec.rpc_layer = rpc->get<std::string>();
  }
  return spec;
}

TfConfigResolver::TfConfigResolver(std::shared_ptr<const Environment> env)
    : EnvironmentResolver("tf_config", "TensorFlow's TF_CONFIG (cluster, task, rpc_layer)",
                          std::move(env)) {}

StatusOr<ClusterSpec> TfConfigResolver::describe() const {
  std::optional<std::string> text = env().find("TF_CONFIG");
  if (!text) return NotSupportedError("TF_CONFIG is not set");
  return parse_tf_config(*text);
}

}  // namespace strata
