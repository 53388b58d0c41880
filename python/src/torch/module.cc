// strata._torch: the torch.distributed backend "strata" (registered by
// python/strata/torch/__init__.py). Built against Debian's libtorch with
// the same pybind11 internals as torch._C, so torch's ProcessGroup, Store
// and Work types and strata._core's Runtime pass between them as they are.
#include <torch/csrc/utils/pybind.h>
#include <pybind11/stl.h>

#include "python/src/common/explanation_dict.h"
#include "python/src/common/status_error.h"
#include "python/src/torch/process_group_strata.h"

namespace py = pybind11;
using strata::python::ProcessGroupStrata;

PYBIND11_MODULE(_torch, m) {
  m.doc() = "The torch.distributed backend \"strata\" (import strata.torch to register it)";
  py::module_::import("torch.distributed");
  py::module_::import("strata._core");  // Runtime, and the translator of StatusError

  py::class_<ProcessGroupStrata, c10d::ProcessGroup, c10::intrusive_ptr<ProcessGroupStrata>>(
      m, "ProcessGroupStrata", "A process group whose collectives run through Strata");

  m.def("create_process_group",
        [](std::shared_ptr<strata::Runtime> runtime, const c10::intrusive_ptr<c10d::Store>& store,
           int rank, int size, double timeout_seconds, std::string group_id,
           std::vector<int64_t> global_ranks, std::optional<std::string> implementation,
           std::optional<uint64_t> bytes_per_pack) {
          ProcessGroupStrata::Spec spec;
          spec.rank = rank;
          spec.size = size;
          spec.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
          spec.group_id = std::move(group_id);
          spec.global_ranks = std::move(global_ranks);
          spec.implementation = std::move(implementation);
          spec.bytes_per_pack = bytes_per_pack;
          return ProcessGroupStrata::create(std::move(runtime), store, spec);
        },
        py::arg("runtime"), py::arg("store"), py::arg("rank"), py::arg("size"),
        py::arg("timeout_seconds"), py::arg("group_id"), py::arg("global_ranks"),
        py::arg("implementation") = py::none(), py::arg("bytes_per_pack") = py::none(),
        py::call_guard<py::gil_scoped_release>());

  // The dict of strata.explain() / `strata explain --json`, for
  // strata.torch.explain().
  m.def("explain",
        [](ProcessGroupStrata& group, const std::string& op, const at::Tensor& tensor,
           const c10d::ReduceOp& reduce_op, int64_t root) {
          ProcessGroupStrata::Explained e;
          {
            py::gil_scoped_release release;
            e = group.explain(op, tensor, reduce_op, root);
          }
          return strata::python::explanation_dict(e.call, e.team, e.selection);
        },
        py::arg("group"), py::arg("op"), py::arg("tensor"), py::arg("reduce_op"),
        py::arg("root"));

  m.def("_shutdown_all", [] {
        strata::python::WorkQueue::shutdown_all(
            strata::AbortedError("the Python interpreter is exiting"));
      }, py::call_guard<py::gil_scoped_release>());
}
