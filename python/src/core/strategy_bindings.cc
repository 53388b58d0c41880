// The pieces of core's strategy layer that strata.distribute reuses rather
// than writing again: the replicas' meeting point (ReplicaRendezvous, with
// its deadlines, abort and "replicas disagree" check) and the split of a
// global batch (even_row_split), and the config's `strategy:` and
// `collectives:` sections as core parsed them (strategy_config).
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/collective/buffer.h"
#include "core/config/config.h"
#include "core/strategy/distributed_dataset.h"
#include "core/strategy/replica_rendezvous.h"
#include "python/src/common/status_error.h"
#include "python/src/core/bindings.h"

namespace py = pybind11;

namespace strata::python {
namespace {

// Python replicas keep their payloads on the Python side; core only needs a
// distinct non-null pointer per replica to count who has arrived.
class PythonRendezvous {
 public:
  explicit PythonRendezvous(int replicas)
      : replicas_(replicas), rendezvous_(replicas), tokens_(static_cast<size_t>(replicas)) {}

  // Waits with the GIL released; the last replica in runs `step` (a Python
  // callable of no arguments) with the GIL held, and every replica gets its
  // outcome. A step that raises fails the meeting for all of them.
  void arrive(int replica, const std::string& what, const py::function& step, double timeout) {
    if (replica < 0 || replica >= replicas_) {
      throw_status(InvalidArgumentError("replica " + std::to_string(replica) +
                                        " is not one of the " + std::to_string(replicas_) +
                                        " replicas meeting at " + what));
    }
    if (!(timeout > 0)) {
      throw_status(InvalidArgumentError("a replica's wait at " + what +
                                        " needs a positive timeout, not " +
                                        std::to_string(timeout)));
    }
    const auto deadline = ReplicaRendezvous::Clock::now() +
                          std::chrono::duration_cast<ReplicaRendezvous::Clock::duration>(
                              std::chrono::duration<double>(timeout));
    auto run_step = [&](std::span<void* const>) -> Status {
      py::gil_scoped_acquire acquire;
      try {
        step();
        return Status();
      } catch (py::error_already_set& raised) {
        return AbortedError("the cross-replica step " + what + " raised: " + raised.what());
      }
    };
    Status status;
    {
      py::gil_scoped_release release;
      status = rendezvous_.arrive(replica, what, &tokens_[static_cast<size_t>(replica)], run_step,
                                  deadline);
    }
    throw_if_error(status);
  }

  void abort(const std::string& why) {
    py::gil_scoped_release release;
    rendezvous_.abort(AbortedError(why));
  }

  void reset() {
    py::gil_scoped_release release;
    rendezvous_.reset();
  }

  int replicas() const { return replicas_; }

 private:
  const int replicas_;
  ReplicaRendezvous rendezvous_;
  std::vector<char> tokens_;
};

// What strata.distribute.strategy_from_config builds: the `strategy:` section
// of the runtime's config, with core's defaults for `devices` filled in the
// way make_strategy does (core/strategy/strategy_factory.cc).
py::dict strategy_config(const std::optional<std::string>& config) {
  std::shared_ptr<Runtime> runtime;
  {
    py::gil_scoped_release release;
    runtime = value_or_throw(process_runtime(config));
  }
  const Config& c = runtime->config();
  const StrategyConfig& s = c.strategy;
  if (s.kind == "parameter_server") {
    throw_status(NotSupportedError(
        c.source + ": strategy.kind parameter_server: ParameterServerStrategy runs from C++ "
        "(make_strategy_from_config; docs/PARAMETER_SERVER.md), not from strata.distribute; "
        "from Python use multi_worker_mirrored, mirrored, central_storage or one_device"));
  }
  if (s.kind == "tpu") {
    throw_status(NotSupportedError(
        c.source + ": strategy.kind tpu: TPUStrategy runs from C++ (make_strategy_from_config; "
        "docs/TPU.md), not from strata.distribute, whose replicas are torch cpu devices; from "
        "Python use mirrored or multi_worker_mirrored"));
  }
  std::vector<std::string> devices = s.devices;
  std::vector<strata_device_t> seen;
  for (const std::string& name : devices) {
    // Python replicas run on cpu devices; strata.distribute refuses the
    // others naming what the process lacks (_devices.py), where core would
    // only say the runtime has no such type.
    if (name.rfind("cpu", 0) != 0) continue;
    const strata_device_t d = value_or_throw(runtime->parse_device(name));
    if (!runtime->device_exists(d)) {
      throw_status(NotFoundError(c.source + ": strategy: device " + name +
                                 " does not exist (see `strata info` for the devices of each "
                                 "type)"));
    }
    if (std::find_if(seen.begin(), seen.end(),
                     [&](strata_device_t o) { return o == d; }) != seen.end()) {
      throw_status(InvalidArgumentError(c.source + ": strategy: device " + name +
                                        " is listed twice; each replica needs its own device"));
    }
    seen.push_back(d);
  }
  if (devices.empty() && (s.kind == "mirrored" || s.kind == "central_storage")) {
    const int count = value_or_throw(runtime->device_count("cpu"));
    for (strata_device_t d : value_or_throw(runtime->devices("cpu", count))) {
      devices.push_back(runtime->device_name(d));
    }
  } else if (devices.empty() && s.kind == "one_device") {
    devices.push_back("cpu:0");
  }
  py::dict out;
  out["source"] = c.source;
  out["kind"] = s.kind;
  out["devices"] = devices;
  out["parameter_device"] = s.parameter_device;
  return out;
}

// The `collectives:` defaults a strategy's communicator starts from (what
// CommunicationOptions leaves unset); timeout in seconds.
py::dict collectives_config(const std::optional<std::string>& config) {
  std::shared_ptr<Runtime> runtime;
  {
    py::gil_scoped_release release;
    runtime = value_or_throw(process_runtime(config));
  }
  const CollectivesConfig& c = runtime->config().collectives;
  py::dict out;
  out["implementation"] = c.implementation;
  out["bytes_per_pack"] = c.bytes_per_pack;
  out["timeout"] = std::chrono::duration<double>(c.timeout).count();
  return out;
}

}  // namespace

void add_strategy_bindings(py::module_& m) {
  py::class_<PythonRendezvous, std::shared_ptr<PythonRendezvous>>(m, "ReplicaRendezvous")
      .def(py::init([](int replicas) {
             if (replicas < 1) {
               throw_status(InvalidArgumentError("a rendezvous needs at least one replica, not " +
                                                 std::to_string(replicas)));
             }
             return std::make_shared<PythonRendezvous>(replicas);
           }),
           py::arg("replicas"))
      .def_property_readonly("replicas", &PythonRendezvous::replicas)
      .def("arrive", &PythonRendezvous::arrive, py::arg("replica"), py::arg("what"),
           py::arg("step"), py::arg("timeout"))
      .def("abort", &PythonRendezvous::abort, py::arg("why"))
      .def("reset", &PythonRendezvous::reset);

  m.def("even_row_split", [](int64_t rows, int parts) {
        if (rows < 0 || parts < 1) {
          throw_status(InvalidArgumentError("cannot split " + std::to_string(rows) + " rows into " +
                                            std::to_string(parts) + " parts"));
        }
        return even_row_split(rows, parts);
      }, py::arg("rows"), py::arg("parts"));

  m.def("strategy_config", &strategy_config, py::arg("config") = py::none());
  m.def("collectives_config", &collectives_config, py::arg("config") = py::none());
}

}  // namespace strata::python
