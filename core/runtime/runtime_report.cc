#include "core/runtime/runtime_report.h"

#include <algorithm>
#include <cstring>

#include "core/plugin/abi_status.h"
#include "strata/abi/algorithm.h"

namespace strata {
namespace {

std::string or_empty(const char* text) { return text == nullptr ? "" : text; }

std::vector<PluginInfo> collect_plugins(const Runtime& runtime) {
  std::vector<PluginInfo> out;
  for (const PluginRecord& r : runtime.loader().records()) {
    PluginInfo p;
    p.name = r.name;
    p.version = r.version;
    // A plugin refused before its entry point answered has no ABI to show.
    if (r.abi_major != 0 || r.abi_minor != 0) {
      p.abi = std::to_string(r.abi_major) + "." + std::to_string(r.abi_minor);
    }
    p.state = state_name(r.state);
    p.location = r.builtin ? "built-in" : r.path.string();
    p.reason = r.reason;
    p.description = r.description;
    out.push_back(std::move(p));
  }
  return out;
}

DeviceInfo describe_device(const DeviceTypeEntry& type, int index, int count) {
  const strata_device_type_t& t = type.table;
  DeviceInfo d;
  d.id = type.name + ":" + std::to_string(index);
  strata_device_props_t props{};
  props.struct_size = sizeof props;
  AbiMessage m;
  Status s = from_abi(t.get_props(t.user_data, index, &props, m.view()), m,
                      type.name + " get_props(" + std::to_string(index) + ")");
  if (!s.ok()) {
    d.error = s.to_string();
    return d;
  }
  d.label.assign(props.name, strnlen(props.name, sizeof props.name));
  d.memory_bytes = props.memory_bytes;
  d.host_accessible = props.host_accessible != 0;
  if (t.can_access_peer == nullptr) return d;  // the ABI's "no device can access a peer"
  for (int peer = 0; peer < count; ++peer) {
    int32_t can = 0;
    if (peer != index && t.can_access_peer(t.user_data, index, peer, &can) == STRATA_OK &&
        can != 0) {
      d.peers.push_back(peer);
    }
  }
  return d;
}

DeviceTypeInfo describe_type(const DeviceTypeEntry& type) {
  DeviceTypeInfo info;
  info.name = type.name;
  info.plugin = type.plugin;
  info.description = or_empty(type.table.description);
  int32_t count = 0;
  AbiMessage m;
  Status s = from_abi(type.table.device_count(type.table.user_data, &count, m.view()), m,
                      type.name + " device_count");
  if (!s.ok()) {
    info.error = s.to_string();
    return info;
  }
  info.count = count;
  const int listed = std::min(count, kMaxListedDevices);
  size_t links = 0;
  for (int i = 0; i < listed; ++i) {
    info.devices.push_back(describe_device(type, i, count));
    links += info.devices.back().peers.size();
  }
  const size_t possible = static_cast<size_t>(listed) * static_cast<size_t>(count - 1);
  if (count <= 1) {
    info.peer_summary = "n/a (fewer than two devices)";
  } else if (links == possible) {
    info.peer_summary = "full mesh: every device reads every peer's memory directly";
  } else if (links == 0) {
    info.peer_summary = "none: copies between devices are staged";
  } else {
    info.peer_summary = "partial: " + std::to_string(links) + " of " + std::to_string(possible) +
                        " device pairs have direct access";
  }
  return info;
}

}  // namespace

std::string scope_name(uint32_t scope) {
  std::string out;
  auto add = [&](uint32_t bit, const char* name) {
    if ((scope & bit) != 0) out += (out.empty() ? "" : "+") + std::string(name);
  };
  add(STRATA_SCOPE_LOCAL, "local");
  add(STRATA_SCOPE_CROSS_PROCESS, "cross_process");
  add(STRATA_SCOPE_MULTI_DEVICE_PROCESSES, "multi_device_processes");
  return out.empty() ? "none" : out;
}

std::string describe_peers(const DeviceTypeInfo& type, const DeviceInfo& device) {
  if (type.count <= 1) return "-";
  const size_t others = static_cast<size_t>(type.count - 1);
  if (device.peers.size() == others) return "all " + std::to_string(others) + " peers";
  if (device.peers.empty()) return "none";
  std::string out;
  for (int peer : device.peers) {
    out += (out.empty() ? "" : ",") + std::to_string(peer);
  }
  return type.name + ":" + out;
}

InfoReport collect_info(const Runtime& runtime) {
  InfoReport report;
  const Config& config = runtime.config();
  report.config_source = config.source.empty() ? "<defaults>" : config.source;
  // The same options Runtime::create gives the loader, so the list is the
  // one that was searched.
  LoaderOptions options;
  options.config_paths = config.plugins.path;
  for (const auto& dir : runtime.loader().search_dirs(options)) {
    report.search_dirs.push_back(dir.string());
  }
  report.plugins = collect_plugins(runtime);
  const Registry& registry = runtime.registry();
  for (const DeviceTypeEntry* type : registry.device_types()) {
    report.device_types.push_back(describe_type(*type));
  }
  for (const AlgorithmEntry* a : registry.algorithms()) {
    report.algorithms.push_back({a->id, std::string(collective_name(a->op)),
                                 scope_name(a->table.scope), or_empty(a->table.description)});
  }
  for (const ResolverEntry* r : registry.resolvers()) {
    report.resolvers.push_back({r->name, r->plugin, or_empty(r->table.description)});
  }
  for (const StoreTypeEntry* s : registry.store_types()) {
    report.stores.push_back({s->name, s->plugin, or_empty(s->table.description)});
  }
  return report;
}

std::string describe_devices(const Runtime& runtime, const std::vector<strata_device_t>& devices) {
  if (devices.empty()) return "no devices";
  if (devices.size() == 1) return runtime.device_name(devices.front());
  return runtime.device_name(devices.front()) + " .. " + runtime.device_name(devices.back());
}

}  // namespace strata
