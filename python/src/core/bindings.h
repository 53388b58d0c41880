// The parts of strata._core, one file per area of core, and the process's
// one Runtime they share.
#ifndef STRATA_PYTHON_SRC_CORE_BINDINGS_H_
#define STRATA_PYTHON_SRC_CORE_BINDINGS_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>

#include "core/runtime/runtime.h"

namespace strata::python {

// The process's Runtime, made on first use from `config` (a YAML file),
// else STRATA_CONFIG, else the built-in defaults; never unloaded (plugins
// may still run threads at exit). A later call naming another file fails:
// some plugins (mpi) initialise once per process. Needs no GIL.
StatusOr<std::shared_ptr<Runtime>> process_runtime(const std::optional<std::string>& config);

void add_runtime_bindings(pybind11::module_& m);       // runtime(), info(), explain()
void add_communicator_bindings(pybind11::module_& m);  // Communicator, local(), join()
void add_strategy_bindings(pybind11::module_& m);      // ReplicaRendezvous, even_row_split()
void add_checkpoint_bindings(pybind11::module_& m);    // write/read/verify_checkpoint(), CheckpointManager

}  // namespace strata::python

#endif  // STRATA_PYTHON_SRC_CORE_BINDINGS_H_
