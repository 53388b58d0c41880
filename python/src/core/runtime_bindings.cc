// strata.runtime(), strata.info(), strata.explain() and resolve_cluster():
// what `strata info --json` and `strata explain --json` print, as dicts
// with the same keys.
#include <pybind11/stl.h>

#include <mutex>

#include "core/cluster/resolve.h"
#include "core/collective/call_size.h"
#include "core/cluster/job_team.h"
#include "core/common/units.h"
#include "core/runtime/runtime_report.h"
#include "python/src/common/explanation_dict.h"
#include "python/src/common/status_error.h"
#include "python/src/core/bindings.h"
#include "strata/abi/version.h"

namespace py = pybind11;

namespace strata::python {
namespace {

std::mutex g_runtime_mu;
std::shared_ptr<Runtime>* g_runtime = nullptr;  // leaked on purpose (bindings.h)
ConfigChoice* g_choice = nullptr;

py::dict info_dict(const InfoReport& report) {
  py::dict out;
  out["version"] = STRATA_VERSION;
  out["abi"] = std::to_string(STRATA_ABI_MAJOR) + "." + std::to_string(STRATA_ABI_MINOR);
  out["config"] = report.config_source;
  out["search_dirs"] = report.search_dirs;
  py::list plugins;
  for (const PluginInfo& p : report.plugins) {
    plugins.append(py::dict(py::arg("name") = p.name, py::arg("version") = p.version,
                            py::arg("abi") = p.abi, py::arg("state") = p.state,
                            py::arg("location") = p.location, py::arg("reason") = p.reason,
                            py::arg("description") = p.description));
  }
  out["plugins"] = plugins;
  py::list types;
  for (const DeviceTypeInfo& t : report.device_types) {
    py::list devices;
    for (const DeviceInfo& d : t.devices) {
      devices.append(py::dict(py::arg("id") = d.id, py::arg("name") = d.label,
                              py::arg("memory_bytes") = d.memory_bytes,
                              py::arg("host_accessible") = d.host_accessible,
                              py::arg("peers") = d.peers, py::arg("error") = d.error));
    }
    types.append(py::dict(py::arg("name") = t.name, py::arg("plugin") = t.plugin,
                          py::arg("description") = t.description, py::arg("count") = t.count,
                          py::arg("devices") = devices, py::arg("peer_access") = t.peer_summary,
                          py::arg("error") = t.error));
  }
  out["device_types"] = types;
  py::list algorithms;
  for (const AlgorithmInfo& a : report.algorithms) {
    algorithms.append(py::dict(py::arg("id") = a.id, py::arg("op") = a.op,
                               py::arg("scope") = a.scope, py::arg("description") = a.description));
  }
  out["algorithms"] = algorithms;
  for (const auto& [key, items] :
       {std::pair{"resolvers", &report.resolvers}, std::pair{"stores", &report.stores}}) {
    py::list list;
    for (const ComponentInfo& c : *items) {
      list.append(py::dict(py::arg("name") = c.name, py::arg("plugin") = c.plugin,
                           py::arg("description") = c.description));
    }
    out[key] = list;
  }
  return out;
}

struct ExplainCall {
  std::string op;
  py::object size;
  std::string dtype, redop, device_type;
  int devices = 4;
  int root = 0;
  bool in_place = false;
};

uint64_t size_in_bytes(const py::object& size, const std::string& op) {
  if (size.is_none()) {
    throw_status(InvalidArgumentError("explain " + op + " needs a size, e.g. \"1MiB\" or 4096"));
  }
  if (py::isinstance<py::str>(size)) return value_or_throw(parse_size(size.cast<std::string>()));
  const auto bytes = size.cast<int64_t>();
  if (bytes < 0) throw_status(InvalidArgumentError("size " + std::to_string(bytes) + " < 0"));
  return static_cast<uint64_t>(bytes);
}

py::dict explain(const ExplainCall& c, const std::optional<std::string>& config) {
  const CollectiveKind op = value_or_throw(parse_collective(c.op));
  const DType dtype = value_or_throw(parse_dtype(c.dtype));
  const ReduceOp redop = value_or_throw(parse_reduce_op(c.redop));
  const uint64_t bytes = op == CollectiveKind::kBarrier ? 0 : size_in_bytes(c.size, c.op);
  py::gil_scoped_release release;
  std::shared_ptr<Runtime> runtime = value_or_throw(process_runtime(config));
  JobTeamSpec spec;
  spec.devices = value_or_throw(runtime->devices(c.device_type, c.devices));
  std::unique_ptr<JobTeam> team = value_or_throw(JobTeam::form(runtime, std::move(spec)));
  const uint64_t count =
      op == CollectiveKind::kBarrier
          ? 0
          : value_or_throw(count_for_bytes(op, bytes, dtype, c.devices, /*exact=*/true));
  Selection sel = value_or_throw(team->ops().explain(op, dtype, count, redop, c.in_place, c.root));
  py::gil_scoped_acquire acquire;
  return explanation_dict(describe_call(op, bytes, count, dtype, redop, c.root, c.in_place),
                          std::to_string(c.devices) + " " + c.device_type + " device(s) (" +
                              describe_devices(*runtime, team->devices()) + ") in 1 process",
                          sel);
}

}  // namespace

StatusOr<std::shared_ptr<Runtime>> process_runtime(const std::optional<std::string>& config) {
  std::lock_guard<std::mutex> lock(g_runtime_mu);
  ConfigChoice choice = choose_config(config.value_or(""));
  choice.flag_name = "the config argument";
  if (g_runtime != nullptr) {
    if (config && !config->empty() && choice.path != g_choice->path) {
      return FailedPreconditionError(
          "this process's Strata runtime already runs with " + g_choice->describe() +
          ", so it cannot switch to " + choice.path.string() +
          ": plugins such as mpi initialise once per process. Pass the same config, or none");
    }
    return *g_runtime;
  }
  Config built_in;
  built_in.source = "<defaults>";
  STRATA_ASSIGN_OR_RETURN(std::shared_ptr<Runtime> runtime,
                          Runtime::from_choice(choice, std::move(built_in)));
  g_runtime = new std::shared_ptr<Runtime>(runtime);
  g_choice = new ConfigChoice(choice);
  return runtime;
}

void add_runtime_bindings(py::module_& m) {
  py::class_<Runtime, std::shared_ptr<Runtime>>(m, "Runtime",
                                                 "The process's plugins, devices and config")
      .def_property_readonly("config_source", [](const Runtime& r) { return r.config().source; });

  m.def("runtime", [](const std::optional<std::string>& config) {
        py::gil_scoped_release release;
        return value_or_throw(process_runtime(config));
      }, py::arg("config") = py::none());

  m.def("info", [](const std::optional<std::string>& config) {
        std::shared_ptr<Runtime> runtime;
        {
          py::gil_scoped_release release;
          runtime = value_or_throw(process_runtime(config));
        }
        return info_dict(collect_info(*runtime));
      }, py::arg("config") = py::none());

  m.def("explain",
        [](const std::string& op, const py::object& size, const std::string& dtype,
           const std::string& redop, int devices, const std::string& device_type,
           const std::optional<std::string>& config, bool in_place, int root) {
          return explain({op, size, dtype, redop, device_type, devices, root, in_place}, config);
        },
        py::arg("op"), py::arg("size") = py::none(), py::arg("dtype") = "f32",
        py::arg("redop") = "sum", py::arg("devices") = 4, py::arg("device_type") = "cpu",
        py::arg("config") = py::none(), py::arg("in_place") = false, py::arg("root") = 0);

  // What the config's resolver (or `name`) says this process is in its
  // job: strata.torch sets torch's env:// variables from it under mpirun.
  m.def("resolve_cluster", [](const std::string& name) {
        py::gil_scoped_release release;
        std::shared_ptr<Runtime> runtime = value_or_throw(process_runtime(std::nullopt));
        ClusterSpec spec = value_or_throw(resolve_cluster(runtime->registry(), name));
        py::gil_scoped_acquire acquire;
        py::dict out;
        out["jobs"] = spec.jobs;
        out["task_type"] = spec.task_type;
        out["task_index"] = spec.task_index;
        out["rank"] = spec.rank();
        out["world_size"] = spec.world_size();
        out["chief_address"] = spec.chief_address();
        out["resolver"] = spec.resolver;
        out["source"] = spec.source;
        out["rpc_layer"] = spec.rpc_layer;
        out["device_type"] = spec.device_type;
        out["devices_per_task"] = spec.devices_per_task;
        return out;
      }, py::arg("name") = "auto");
}

}  // namespace strata::python
