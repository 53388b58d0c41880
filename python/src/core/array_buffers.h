// Numpy arrays (anything with the buffer protocol) as collective buffers,
// zero-copy: the Buffer points at the array's own memory, and the views
// stay held while the collective runs with the GIL released.
#ifndef STRATA_PYTHON_SRC_CORE_ARRAY_BUFFERS_H_
#define STRATA_PYTHON_SRC_CORE_ARRAY_BUFFERS_H_

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include "core/collective/buffer.h"

namespace strata::python {

class ArrayBuffers {
 public:
  // One array per device of `devices`, each C-contiguous, of a dtype
  // Strata reduces (float32/64/16, int32/64, uint8; uint16 as bf16 when
  // `dtype` says "bf16"), writable when `writable`. `what` names the
  // argument in errors ("inputs", "out"). Needs the GIL.
  ArrayBuffers(const pybind11::sequence& arrays, const std::vector<strata_device_t>& devices,
               const std::optional<std::string>& dtype, bool writable, const std::string& what);
  // One buffer per array of `arrays` (batch_all_reduce's tensors of one
  // replica), all on `device`.
  ArrayBuffers(const pybind11::sequence& arrays, strata_device_t device,
               const std::optional<std::string>& dtype, bool writable, const std::string& what);

  const std::vector<Buffer>& buffers() const { return buffers_; }

 private:
  void add(const pybind11::handle& array, strata_device_t device,
           const std::optional<std::string>& dtype, bool writable, const std::string& name);

  std::vector<pybind11::buffer_info> views_;  // released with the GIL held
  std::vector<Buffer> buffers_;
};

}  // namespace strata::python

#endif  // STRATA_PYTHON_SRC_CORE_ARRAY_BUFFERS_H_
