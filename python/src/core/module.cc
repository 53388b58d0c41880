// strata._core: the bindings of libstrata that the `strata` package wraps
// (python/strata/__init__.py). Errors leave as strata.*Error exceptions.
#include <pybind11/pybind11.h>

#include "python/src/common/status_error.h"
#include "python/src/core/bindings.h"

namespace py = pybind11;

namespace strata::python {
namespace {

// Raises the strata._errors class of the status's code. pybind11's
// translators are shared with every module built alike (torch's too), so
// this also serves a StatusError that torch's Work.wait() rethrows.
void raise_status_error(const StatusError& error) {
  const Status& status = error.status();
  py::object errors = py::module_::import("strata._errors");
  py::object by_code = errors.attr("BY_CODE");
  const int code = static_cast<int>(status.code());
  py::object cls = by_code.attr("get")(code, errors.attr("StrataError"));
  py::object value = cls(error.what(), code, code_name(status.code()),
                         status.message() + " [" + status.file() + ":" +
                             std::to_string(status.line()) + "]",
                         status.context());
  PyErr_SetObject(cls.ptr(), value.ptr());
}

}  // namespace
}  // namespace strata::python

PYBIND11_MODULE(_core, m) {
  using strata::python::StatusError;
  m.doc() = "Strata's core, bound for Python: runtime, info, explain, communicators, checkpoints";
  m.attr("__version__") = STRATA_VERSION;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      try {
        strata::python::raise_status_error(e);
      } catch (py::error_already_set& failed) {
        failed.restore();  // strata._errors itself failed: report that
      }
    }
  });
  strata::python::add_runtime_bindings(m);
  strata::python::add_communicator_bindings(m);
  strata::python::add_strategy_bindings(m);
  strata::python::add_checkpoint_bindings(m);
}
