// Core's checkpoint file (core/checkpoint/checkpoint_file.h), bound for
// strata.distribute.Checkpoint: the same bytes the C++ Model writes, so a
// file is written atomically (temp file, fsync, rename) and read back only
// whole, its CRC-32 checked, by one implementation; and core's
// CheckpointManager (numbered files, an index, max_to_keep). Python decides what the
// names mean; these functions only move named f32 arrays and text.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/checkpoint/checkpoint_file.h"
#include "core/checkpoint/checkpoint_format.h"
#include "core/checkpoint/checkpoint_manager.h"
#include "python/src/common/status_error.h"
#include "python/src/core/bindings.h"

namespace py = pybind11;

namespace strata::python {
namespace {

using F32Array = py::array_t<float, py::array::c_style>;

// Copies `array` into a Tensor: the file holds f32 values only, so the
// caller (Python) converts other dtypes first and records what they were.
Tensor to_tensor(const std::string& name, const py::handle& value) {
  if (!py::isinstance<F32Array>(value)) {
    throw_status(InvalidArgumentError("checkpoint tensor '" + name +
                                      "' must be a C-contiguous float32 numpy array"));
  }
  const auto array = py::reinterpret_borrow<F32Array>(value);
  Shape shape(array.shape(), array.shape() + array.ndim());
  std::vector<float> values(static_cast<size_t>(array.size()));
  if (!values.empty()) std::memcpy(values.data(), array.data(), values.size() * sizeof(float));
  return Tensor(std::move(shape), std::move(values));
}

F32Array to_array(const Tensor& tensor) {
  F32Array array(tensor.shape());
  if (tensor.size() > 0) {
    std::memcpy(array.mutable_data(), tensor.data(),
                static_cast<size_t>(tensor.size()) * sizeof(float));
  }
  return array;
}

Checkpoint to_checkpoint(int64_t step, const py::dict& tensors,
                         const std::map<std::string, std::string>& metadata) {
  Checkpoint checkpoint;
  checkpoint.step = step;
  checkpoint.metadata = metadata;
  for (const auto& [key, value] : tensors) {
    std::string name = py::cast<std::string>(key);
    Tensor tensor = to_tensor(name, value);
    checkpoint.tensors.emplace(std::move(name), std::move(tensor));
  }
  return checkpoint;
}

void write(const std::string& path, int64_t step, const py::dict& tensors,
           const std::map<std::string, std::string>& metadata) {
  const Checkpoint checkpoint = to_checkpoint(step, tensors, metadata);
  Status status;
  {
    py::gil_scoped_release release;
    status = write_checkpoint(path, checkpoint);
  }
  throw_if_error(status);
}

std::string manager_save(CheckpointManager& manager, int64_t step, const py::dict& tensors,
                         const std::map<std::string, std::string>& metadata) {
  const Checkpoint checkpoint = to_checkpoint(step, tensors, metadata);
  StatusOr<std::filesystem::path> path = [&] {
    py::gil_scoped_release release;
    return manager.save(checkpoint);
  }();
  return value_or_throw(std::move(path)).string();
}

std::optional<std::string> manager_latest(const CheckpointManager& manager) {
  std::optional<std::filesystem::path> latest;
  {
    py::gil_scoped_release release;
    latest = manager.latest();
  }
  if (!latest) return std::nullopt;
  return latest->string();
}

std::vector<std::string> manager_checkpoints(const CheckpointManager& manager) {
  std::vector<std::string> paths;
  for (const auto& path : manager.checkpoints()) paths.push_back(path.string());
  return paths;
}

py::dict read(const std::string& path) {
  StatusOr<Checkpoint> read_result = [&] {
    py::gil_scoped_release release;
    return read_checkpoint(path);
  }();
  Checkpoint checkpoint = value_or_throw(std::move(read_result));
  py::dict tensors;
  for (const auto& [name, tensor] : checkpoint.tensors) tensors[py::str(name)] = to_array(tensor);
  py::dict result;
  result["step"] = checkpoint.step;
  result["tensors"] = tensors;
  result["metadata"] = checkpoint.metadata;
  result["checksum"] = checkpoint.checksum;
  result["checksum_text"] = crc_text(checkpoint.checksum);
  result["source"] = checkpoint.source.string();
  return result;
}

void verify(const std::string& path) {
  Status status;
  {
    py::gil_scoped_release release;
    status = verify_checkpoint(path);
  }
  throw_if_error(status);
}

}  // namespace

void add_checkpoint_bindings(py::module_& m) {
  m.def("write_checkpoint", &write, py::arg("path"), py::arg("step"), py::arg("tensors"),
        py::arg("metadata"),
        "Writes named float32 arrays, a step and text metadata to `path` atomically "
        "(core's checkpoint format: temp file, fsync, rename; CRC-32 trailer).");
  m.def("read_checkpoint", &read, py::arg("path"),
        "Reads a whole checkpoint, its CRC-32 checked: a dict of step, tensors, metadata, "
        "checksum, checksum_text and source. DataLossError for a truncated or corrupt file.");
  m.def("verify_checkpoint", &verify, py::arg("path"),
        "Checks a checkpoint's header, length and CRC-32 without loading its tensors.");
  py::class_<CheckpointManager>(m, "CheckpointManager",
                                "core's CheckpointManager: ckpt-<step>.strata files and an index "
                                "in one directory, the newest max_to_keep kept")
      .def(py::init([](const std::string& directory, int max_to_keep) {
             return CheckpointManager(directory, max_to_keep);
           }),
           py::arg("directory"), py::arg("max_to_keep") = 5)
      .def("save", &manager_save, py::arg("step"), py::arg("tensors"), py::arg("metadata"),
           "Writes ckpt-<step>.strata atomically, updates the index, drops the oldest; "
           "returns the new file's path.")
      .def("latest", &manager_latest,
           "The newest kept checkpoint whose header, length and CRC-32 are valid, or None.")
      .def("checkpoints", &manager_checkpoints, "The kept checkpoints, oldest first.")
      .def_property_readonly("directory",
                             [](const CheckpointManager& c) { return c.directory().string(); })
      .def_property_readonly("max_to_keep", &CheckpointManager::max_to_keep);
}

}  // namespace strata::python
