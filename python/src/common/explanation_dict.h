// The dict strata.explain(), Communicator.explain() and
// strata.torch.explain() return (and `strata explain --json` prints): one
// shape for the three, which strata._explain.Explanation reads. Header-only,
// since each compiled module brings its own pybind11 (torch's for _torch).
#ifndef STRATA_PYTHON_SRC_COMMON_EXPLANATION_DICT_H_
#define STRATA_PYTHON_SRC_COMMON_EXPLANATION_DICT_H_

#include <pybind11/pybind11.h>

#include <string>

#include "core/collective/selector.h"

namespace strata::python {

// Needs the GIL.
inline pybind11::dict explanation_dict(const std::string& call, const std::string& team,
                                       const Selection& selection) {
  namespace py = pybind11;
  py::dict out;
  out["call"] = call;
  out["team"] = team;
  out["winner"] = selection.chosen->id;
  out["reason"] = selection.reason;
  py::list candidates;
  for (const Candidate& k : selection.candidates) {
    candidates.append(py::dict(
        py::arg("algorithm") = k.algorithm->id, py::arg("source") = k.source,
        py::arg("estimate_seconds") = k.estimate, py::arg("measured_seconds") = k.measured,
        py::arg("verdict") = k.verdict));
  }
  out["candidates"] = candidates;
  return out;
}

}  // namespace strata::python

#endif  // STRATA_PYTHON_SRC_COMMON_EXPLANATION_DICT_H_
