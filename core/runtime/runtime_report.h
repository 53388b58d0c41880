// Everything `strata info` and Python's strata.info() show, collected from a
// Runtime into plain data once, so the text tables, the JSON output and the
// Python dict cannot disagree.
#ifndef STRATA_CORE_RUNTIME_RUNTIME_REPORT_H_
#define STRATA_CORE_RUNTIME_RUNTIME_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/runtime/runtime.h"

namespace strata {

struct PluginInfo {
  std::string name;
  std::string version;
  std::string abi;       // "1.1", empty when the file was never asked
  std::string state;     // loaded | skipped | refused
  std::string location;  // the file, or "built-in"
  std::string reason;    // why skipped or refused; a note for some loads
  std::string description;
};

struct DeviceInfo {
  std::string id;             // "cpu:3"
  std::string label;          // the type's own name for it
  uint64_t memory_bytes = 0;  // 0: unknown
  bool host_accessible = false;
  std::vector<int> peers;  // indices of the other devices it can read directly
  std::string error;       // set when the type could not describe it
};

struct DeviceTypeInfo {
  std::string name;
  std::string plugin;
  std::string description;
  int count = 0;
  std::vector<DeviceInfo> devices;  // at most kMaxListedDevices
  std::string peer_summary;         // "full mesh", "none", "partial: ..."
  std::string error;                // device_count failed
};

struct AlgorithmInfo {
  std::string id;
  std::string op;
  std::string scope;  // "local", "cross_process", "local+cross_process", ...
  std::string description;
};

struct ComponentInfo {  // a resolver or a store type
  std::string name;
  std::string plugin;
  std::string description;
};

struct InfoReport {
  std::string config_source;
  std::vector<std::string> search_dirs;
  std::vector<PluginInfo> plugins;
  std::vector<DeviceTypeInfo> device_types;
  std::vector<AlgorithmInfo> algorithms;
  std::vector<ComponentInfo> resolvers;
  std::vector<ComponentInfo> stores;
};

// Listing thousands of devices helps nobody; the count is still reported.
inline constexpr int kMaxListedDevices = 64;

InfoReport collect_info(const Runtime& runtime);

// "cpu:0 .. cpu:3" (or "cpu:0" for one device), as `strata explain` and
// strata.explain() name a team's devices.
std::string describe_devices(const Runtime& runtime, const std::vector<strata_device_t>& devices);

// "local", "cross_process", "local+multi_device_processes".
std::string scope_name(uint32_t scope);
// "all 7 peers", "none", "cpu:1, cpu:2".
std::string describe_peers(const DeviceTypeInfo& type, const DeviceInfo& device);

}  // namespace strata

#endif  // STRATA_CORE_RUNTIME_RUNTIME_REPORT_H_
