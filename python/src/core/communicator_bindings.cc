// strata.Communicator: collectives on numpy arrays, one array per local
// device, run with the GIL released on the arrays' own memory.
#include <pybind11/chrono.h>
#include <pybind11/stl.h>

#include <chrono>
#include <map>

#include "core/collective/call_size.h"
#include "core/runtime/runtime_report.h"
#include "python/src/common/communicator.h"
#include "python/src/common/explanation_dict.h"
#include "python/src/common/status_error.h"
#include "python/src/core/array_buffers.h"
#include "python/src/core/bindings.h"

namespace py = pybind11;

namespace strata::python {
namespace {

using Seconds = std::optional<double>;

CallOptions call_options(const Seconds& timeout) {
  CallOptions options;
  if (timeout) {
    if (!(*timeout > 0)) {
      throw_status(InvalidArgumentError("timeout must be a positive number of seconds, not " +
                                        std::to_string(*timeout)));
    }
    options.timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(*timeout));
  }
  return options;
}

CommunicationOptions communication_options(const std::optional<std::string>& implementation,
                                           const std::optional<uint64_t>& bytes_per_pack,
                                           const Seconds& timeout) {
  CommunicationOptions options;
  options.implementation = implementation;
  options.bytes_per_pack = bytes_per_pack;
  options.timeout = call_options(timeout).timeout;
  return options;
}

// Runs `body(ops)` on the communicator's team with the GIL released.
template <class Body>
void run(Communicator& comm, Body&& body) {
  py::gil_scoped_release release;
  std::shared_ptr<JobTeam> team = value_or_throw(comm.team());
  throw_if_error(body(team->ops()));
}

ReduceOp reduce_op(const std::string& name) { return value_or_throw(parse_reduce_op(name)); }

// out, or the inputs themselves for an in-place call.
py::sequence outputs_or(const py::object& out, const py::sequence& arrays) {
  return out.is_none() ? arrays : out.cast<py::sequence>();
}

py::dict explain_call(Communicator& comm, const std::string& op_name, const std::string& dtype_name,
                      uint64_t count, const std::string& redop_name, int root, bool in_place) {
  const CollectiveKind op = value_or_throw(parse_collective(op_name));
  const DType dtype = value_or_throw(parse_dtype(dtype_name));
  const ReduceOp redop = reduce_op(redop_name);
  Selection sel;
  {
    py::gil_scoped_release release;
    std::shared_ptr<JobTeam> team = value_or_throw(comm.team());
    sel = value_or_throw(team->ops().explain(op, dtype, count, redop, in_place, root));
  }
  return explanation_dict(describe_call(op, bytes_for_count(op, count, dtype, comm.replica_count()),
                                        count, dtype, redop, root, in_place),
                          comm.describe(), sel);
}

// resolve_cluster()'s dict back into a ClusterSpec; ClusterSpec::validate
// then says what is wrong with it.
ClusterSpec cluster_spec_from_dict(const py::dict& d) {
  ClusterSpec spec;
  spec.jobs = d["jobs"].cast<std::map<std::string, std::vector<std::string>>>();
  spec.task_type = d["task_type"].cast<std::string>();
  spec.task_index = d["task_index"].cast<int>();
  auto text = [&](const char* key) {
    return d.contains(key) && !d[key].is_none() ? d[key].cast<std::string>() : std::string();
  };
  spec.rpc_layer = text("rpc_layer");
  spec.device_type = text("device_type");
  spec.resolver = text("resolver");
  spec.source = text("source");
  if (d.contains("devices_per_task") && !d["devices_per_task"].is_none()) {
    spec.devices_per_task = d["devices_per_task"].cast<int>();
  }
  return spec;
}

}  // namespace

void add_communicator_bindings(py::module_& m) {
  using Opt = std::optional<std::string>;
  py::class_<Communicator, std::shared_ptr<Communicator>> cls(m, "Communicator");
  cls.def_property_readonly("rank", &Communicator::rank)
      .def_property_readonly("world_size", &Communicator::world_size)
      .def_property_readonly("local_count", &Communicator::local_count)
      .def_property_readonly("replica_count", &Communicator::replica_count)
      .def_property_readonly("devices", &Communicator::device_names)
      .def("close", [](Communicator& c) { py::gil_scoped_release r; c.close(); })
      .def("__repr__", [](const Communicator& c) { return "<strata.Communicator " + c.describe() + ">"; });

  cls.def("all_reduce", [](Communicator& c, const py::sequence& arrays, const std::string& op,
                           const py::object& out, const Seconds& timeout, const Opt& dtype) {
        const py::sequence outs = outputs_or(out, arrays);
        ArrayBuffers in(arrays, c.devices(), dtype, out.is_none(), "arrays");
        ArrayBuffers res(outs, c.devices(), dtype, true, out.is_none() ? "arrays" : "out");
        const CallOptions options = call_options(timeout);
        run(c, [&](CollectiveOps& ops) {
          return ops.all_reduce(in.buffers(), res.buffers(), reduce_op(op), options);
        });
        return outs;
      }, py::arg("arrays"), py::arg("op") = "sum", py::arg("out") = py::none(),
      py::arg("timeout") = py::none(), py::arg("dtype") = py::none());

  cls.def("broadcast", [](Communicator& c, const py::sequence& arrays, int root,
                          const py::object& out, const Seconds& timeout, const Opt& dtype) {
        const py::sequence outs = outputs_or(out, arrays);
        ArrayBuffers in(arrays, c.devices(), dtype, out.is_none(), "arrays");
        ArrayBuffers res(outs, c.devices(), dtype, true, out.is_none() ? "arrays" : "out");
        const CallOptions options = call_options(timeout);
        run(c, [&](CollectiveOps& ops) { return ops.broadcast(in.buffers(), res.buffers(), root, options); });
        return outs;
      }, py::arg("arrays"), py::arg("root") = 0, py::arg("out") = py::none(),
      py::arg("timeout") = py::none(), py::arg("dtype") = py::none());

  cls.def("reduce", [](Communicator& c, const py::sequence& arrays, int root, const std::string& op,
                       const py::object& out, const Seconds& timeout, const Opt& dtype) {
        const py::sequence outs = outputs_or(out, arrays);
        ArrayBuffers in(arrays, c.devices(), dtype, out.is_none(), "arrays");
        ArrayBuffers res(outs, c.devices(), dtype, true, out.is_none() ? "arrays" : "out");
        const CallOptions options = call_options(timeout);
        run(c, [&](CollectiveOps& ops) {
          return ops.reduce(in.buffers(), res.buffers(), reduce_op(op), root, options);
        });
        return outs;
      }, py::arg("arrays"), py::arg("root") = 0, py::arg("op") = "sum", py::arg("out") = py::none(),
      py::arg("timeout") = py::none(), py::arg("dtype") = py::none());

  cls.def("all_gather", [](Communicator& c, const py::sequence& arrays, const py::sequence& out,
                           const Seconds& timeout, const Opt& dtype) {
        ArrayBuffers in(arrays, c.devices(), dtype, false, "arrays");
        ArrayBuffers res(out, c.devices(), dtype, true, "out");
        const CallOptions options = call_options(timeout);
        run(c, [&](CollectiveOps& ops) { return ops.all_gather(in.buffers(), res.buffers(), options); });
        return out;
      }, py::arg("arrays"), py::arg("out"), py::arg("timeout") = py::none(),
      py::arg("dtype") = py::none());

  cls.def("reduce_scatter", [](Communicator& c, const py::sequence& arrays, const py::sequence& out,
                               const std::string& op, const Seconds& timeout, const Opt& dtype) {
        ArrayBuffers in(arrays, c.devices(), dtype, false, "arrays");
        ArrayBuffers res(out, c.devices(), dtype, true, "out");
        const CallOptions options = call_options(timeout);
        run(c, [&](CollectiveOps& ops) {
          return ops.reduce_scatter(in.buffers(), res.buffers(), reduce_op(op), options);
        });
        return out;
      }, py::arg("arrays"), py::arg("out"), py::arg("op") = "sum", py::arg("timeout") = py::none(),
      py::arg("dtype") = py::none());

  cls.def("barrier", [](Communicator& c, const Seconds& timeout) {
        const CallOptions options = call_options(timeout);
        run(c, [&](CollectiveOps& ops) { return ops.barrier(options); });
      }, py::arg("timeout") = py::none());

  cls.def("batch_all_reduce", [](Communicator& c, const py::sequence& per_replica,
                                 const std::string& op, const Seconds& timeout, const Opt& dtype) {
        if (py::len(per_replica) != c.devices().size()) {
          throw_status(InvalidArgumentError(
              "batch_all_reduce takes one list of arrays per local device (" +
              std::to_string(c.devices().size()) + "), not " + std::to_string(py::len(per_replica))));
        }
        std::vector<ArrayBuffers> views;
        std::vector<std::vector<Buffer>> lists;
        for (size_t r = 0; r < c.devices().size(); ++r) {
          views.emplace_back(per_replica[r].cast<py::sequence>(), c.devices()[r], dtype, true,
                             "per_replica[" + std::to_string(r) + "]");
          lists.push_back(views.back().buffers());
        }
        const CallOptions options = call_options(timeout);
        run(c, [&](CollectiveOps& ops) { return ops.batch_all_reduce(lists, reduce_op(op), options); });
        return per_replica;
      }, py::arg("per_replica"), py::arg("op") = "sum", py::arg("timeout") = py::none(),
      py::arg("dtype") = py::none());

  cls.def("explain", &explain_call, py::arg("op") = "all_reduce", py::arg("dtype") = "f32",
          py::arg("count") = 1024, py::arg("redop") = "sum", py::arg("root") = 0,
          py::arg("in_place") = false);

  m.def("local", [](const std::vector<std::string>& devices, const Opt& implementation,
                    const std::optional<uint64_t>& bytes_per_pack, const Seconds& timeout,
                    const Opt& config) {
        CommunicationOptions options = communication_options(implementation, bytes_per_pack, timeout);
        py::gil_scoped_release release;
        std::shared_ptr<Runtime> runtime = value_or_throw(process_runtime(config));
        return value_or_throw(Communicator::local(runtime, devices, std::move(options)));
      }, py::arg("devices") = std::vector<std::string>{}, py::arg("implementation") = py::none(),
      py::arg("bytes_per_pack") = py::none(), py::arg("timeout") = py::none(),
      py::arg("config") = py::none());

  m.def("join", [](const std::vector<std::string>& devices, const Opt& implementation,
                   const std::optional<uint64_t>& bytes_per_pack, const Seconds& timeout,
                   const Opt& config) {
        CommunicationOptions options = communication_options(implementation, bytes_per_pack, timeout);
        py::gil_scoped_release release;
        std::shared_ptr<Runtime> runtime = value_or_throw(process_runtime(config));
        return value_or_throw(Communicator::join(runtime, devices, std::move(options)));
      }, py::arg("devices") = std::vector<std::string>{}, py::arg("implementation") = py::none(),
      py::arg("bytes_per_pack") = py::none(), py::arg("timeout") = py::none(),
      py::arg("config") = py::none());

  // join() in a job described by a dict (resolve_cluster's shape), for
  // strata.distribute's resolver objects.
  m.def("join_cluster", [](const py::dict& cluster, const std::vector<std::string>& devices,
                           const Opt& implementation, const std::optional<uint64_t>& bytes_per_pack,
                           const Seconds& timeout, const Opt& config) {
        CommunicationOptions options = communication_options(implementation, bytes_per_pack, timeout);
        ClusterSpec spec = cluster_spec_from_dict(cluster);
        py::gil_scoped_release release;
        std::shared_ptr<Runtime> runtime = value_or_throw(process_runtime(config));
        return value_or_throw(Communicator::join(runtime, std::move(spec), devices,
                                                 std::move(options)));
      }, py::arg("cluster"), py::arg("devices") = std::vector<std::string>{},
      py::arg("implementation") = py::none(), py::arg("bytes_per_pack") = py::none(),
      py::arg("timeout") = py::none(), py::arg("config") = py::none());
}

}  // namespace strata::python
