// The YAML configuration, parsed and validated (docs/CONFIG.md has the
// schema). Every value here came from the file or is the documented default;
// an unknown key or a bad value is an error naming file:line:column, never a
// silent default.
#ifndef STRATA_CORE_CONFIG_CONFIG_H_
#define STRATA_CORE_CONFIG_CONFIG_H_

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cluster/store_limits.h"
#include "core/common/dtype.h"
#include "core/common/status.h"

namespace strata {

class Registry;
class TuningTable;

// Where a value stood in its file, for messages: "configs/x.yaml:12:7".
struct SourceMark {
  std::string file;
  int line = 0;    // 1-based; 0 when the value did not come from a file
  int column = 0;  // 1-based
  std::string to_string() const;
};

// One entry of collectives.rules: the first rule that matches a call picks
// its algorithm.
struct CollectiveRule {
  std::optional<CollectiveKind> op;          // unset: any op
  uint64_t min_bytes = 0;                    // inclusive
  uint64_t max_bytes = std::numeric_limits<uint64_t>::max();  // inclusive
  std::optional<DType> dtype;                // unset: any dtype
  std::string device_type;                   // empty: any device type
  std::string use;                           // algorithm id plugin/op/name
  SourceMark mark;                           // where `use` was written
};

struct CollectivesConfig {
  std::string implementation = "auto";  // auto | ring | nccl | <plugin> | <id>
  std::chrono::nanoseconds timeout = std::chrono::seconds(300);
  uint64_t bytes_per_pack = uint64_t{32} << 20;
  std::vector<CollectiveRule> rules;
  SourceMark implementation_mark;
  // Host composition of teams that span hosts (host_hierarchy.h): "auto"
  // (when the estimates say it is faster, or nothing serves the team flat),
  // "host" (always, where the team has a host with several processes) or
  // "flat" (never).
  std::string hierarchy = "auto";
  // collectives.tuning: measured times AUTO ranks by (tuning_table.h);
  // shared, read-only, loaded once with the config.
  std::shared_ptr<const TuningTable> tuning;
};

struct PluginsConfig {
  std::vector<std::filesystem::path> path;  // relative paths: to the config file
  std::vector<std::string> enable;
  std::vector<std::string> disable;
  // plugins.options.<plugin>.<key>: values kept as strings ("4MiB").
  std::map<std::string, std::map<std::string, std::string>> options;
};

struct DevicesConfig {
  int cpu_count = 8;                                // virtual CPU devices
  uint64_t cpu_memory = uint64_t{16} << 30;         // accounting limit each
};

struct ClusterConfig {
  std::string resolver = "auto";  // auto | tf_config | slurm | mpi | simple | <plugin's>
  // Rendezvous store: "auto" (memory for one process, else TCP hosted by
  // the chief at its address), or "<type>:<address>" such as
  // "tcp:10.0.0.1:29500", "file:/shared/dir", "memory:name".
  std::string store = "auto";
  // How long forming a job (store connection, every rank arriving) may take.
  std::chrono::nanoseconds rendezvous_timeout = std::chrono::seconds(120);
  // How often each process proves it is alive through the store; a peer
  // silent for several intervals is reported dead by the health check.
  std::chrono::nanoseconds heartbeat = std::chrono::seconds(1);
  // cluster.store_max_bytes / store_max_keys / store_max_value: what the
  // job may make its TCP store hold (read where the store is hosted).
  StoreLimits store_limits;
  SourceMark store_mark;
};

// strategy.* keys of kind parameter_server (docs/PARAMETER_SERVER.md has
// each scheme's update rule and which of these it reads).
struct ParameterServerConfig {
  // hogwild | downpour | agn | sagn | sync | dynamic_sgd | aeasgd | aeamsgd
  std::string scheme = "hogwild";
  float learning_rate = 0.05f;
  // sync / sagn: worker k's rate; empty: learning_rate for every worker.
  std::vector<float> worker_learning_rates;
  // Local steps between two exchanges with the ps (DOWNPOUR's n_push,
  // AGN's lambda, EASGD's tau); hogwild and sync always exchange every step.
  int communication_period = 1;
  float moving_rate = 0.1f;       // elastic averaging's alpha
  float momentum = 0.9f;          // aeamsgd's delta
  std::string local_optimizer = "sgd";  // downpour: sgd | adagrad
  std::string variable_placement = "round_robin";  // round_robin | by_size
  // A variable larger than this is split over the ps tasks.
  uint64_t split_bytes = uint64_t{64} << 10;
  // A worker silent this long is dead: its steps are re-queued.
  std::chrono::nanoseconds worker_timeout = std::chrono::seconds(5);
  // Longest wait for one ps reply (a dead ps is reported after this).
  std::chrono::nanoseconds request_timeout = std::chrono::seconds(30);
  // How long a ps waits for its first worker before it gives up.
  std::chrono::nanoseconds startup_timeout = std::chrono::seconds(120);
};

struct StrategyConfig {
  std::string kind = "default";        // default | one_device | mirrored | ...
  std::vector<std::string> devices;    // "cpu:0", "cpu:1"
  std::string parameter_device;        // central_storage: where variables live
  ParameterServerConfig parameter_server;  // kind parameter_server only
};

struct Config {
  int schema_version = 1;  // `strata: 1`
  std::string source;      // file name, or "<string>" / "<defaults>"
  PluginsConfig plugins;
  ClusterConfig cluster;
  StrategyConfig strategy;
  CollectivesConfig collectives;
  DevicesConfig devices;
};

// Parse a config file or text. Errors read
//   "configs/x.yaml:12:7: unknown key 'timout' in collectives; expected one
//    of: implementation, timeout, bytes_per_pack, rules, tuning".
StatusOr<Config> load_config_file(const std::filesystem::path& path);
StatusOr<Config> parse_config(std::string_view yaml, std::string_view source_name);

// A whole regular file (config, tuning table); NOT_FOUND or INVALID_ARGUMENT
// naming "<what> '<path>'" and the reason otherwise.
StatusOr<std::string> read_text_file(const std::filesystem::path& path, std::string_view what);

// Checks what only the loaded plugins can tell: every rule's `use` and the
// `implementation` name something registered. Errors carry the rule's mark.
Status validate_config(const Config& config, const Registry& registry);

}  // namespace strata

#endif  // STRATA_CORE_CONFIG_CONFIG_H_
