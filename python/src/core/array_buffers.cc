#include "python/src/core/array_buffers.h"

#include <string_view>

#include "core/common/dtype.h"
#include "python/src/common/status_error.h"

namespace py = pybind11;

namespace strata::python {
namespace {

std::string shape_text(const py::buffer_info& info) {
  std::string out = "(";
  for (size_t i = 0; i < info.shape.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(info.shape[i]);
  }
  return out + (info.shape.size() == 1 ? ",)" : ")");
}

// Numpy's format characters, after a byte-order mark ('<', '=', '@'; '>'
// and '!' are big-endian, which no device here computes in).
StatusOr<DType> dtype_of(const py::buffer_info& info, const std::optional<std::string>& wanted,
                         const std::string& name) {
  std::string_view format = info.format;
  if (!format.empty() && (format[0] == '<' || format[0] == '=' || format[0] == '@')) {
    format.remove_prefix(1);
  }
  const bool bf16 = wanted && (*wanted == "bf16" || *wanted == "bfloat16");
  std::optional<DType> dtype;
  if (format.size() == 1) {
    switch (format[0]) {
      case 'f': dtype = DType::kF32; break;
      case 'd': dtype = DType::kF64; break;
      case 'e': dtype = DType::kF16; break;
      case 'B': dtype = DType::kU8; break;
      case 'H': if (bf16) dtype = DType::kBF16; break;
      case 'i': case 'l': case 'q':
        if (info.itemsize == 4) dtype = DType::kI32;
        if (info.itemsize == 8) dtype = DType::kI64;
        break;
      default: break;
    }
  }
  if (!dtype) {
    return InvalidArgumentError(
        name + " has element format '" + info.format + "' (" + std::to_string(info.itemsize) +
        " B), which Strata does not reduce; it takes float32, float64, float16, int32, int64 "
        "and uint8 arrays, and uint16 arrays holding bfloat16 with dtype=\"bf16\"");
  }
  if (wanted && !bf16) {
    STRATA_ASSIGN_OR_RETURN(DType named, parse_dtype(*wanted));
    if (named != *dtype) {
      return InvalidArgumentError(name + " holds " + std::string(dtype_name(*dtype)) +
                                  " elements, but dtype=\"" + *wanted + "\" was given");
    }
  }
  if (bf16 && *dtype != DType::kBF16) {
    return InvalidArgumentError(name + " must be a uint16 array to hold bf16 elements, not '" +
                                info.format + "'");
  }
  return *dtype;
}

Status check_layout(const py::buffer_info& info, const std::string& name) {
  py::ssize_t expected = info.itemsize;
  for (size_t i = info.ndim; i-- > 0;) {
    if (info.shape[i] > 1 && info.strides[i] != expected) {
      return InvalidArgumentError(
          name + " of shape " + shape_text(info) + " is not C-contiguous (stride " +
          std::to_string(info.strides[i]) + " B on axis " + std::to_string(i) + ", expected " +
          std::to_string(expected) + " B); collectives work in place on the array's memory, "
          "so pass np.ascontiguousarray(a) and read the result from that copy");
    }
    expected *= info.shape[i];
  }
  return Status();
}

}  // namespace

ArrayBuffers::ArrayBuffers(const py::sequence& arrays, const std::vector<strata_device_t>& devices,
                           const std::optional<std::string>& dtype, bool writable,
                           const std::string& what) {
  if (py::len(arrays) != devices.size()) {
    throw_status(InvalidArgumentError(
        what + " holds " + std::to_string(py::len(arrays)) + " array(s), but this communicator has " +
        std::to_string(devices.size()) + " local device(s): pass one array per local device"));
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    add(py::object(arrays[i]), devices[i], dtype, writable, what + "[" + std::to_string(i) + "]");
  }
}

ArrayBuffers::ArrayBuffers(const py::sequence& arrays, strata_device_t device,
                           const std::optional<std::string>& dtype, bool writable,
                           const std::string& what) {
  for (size_t i = 0; i < py::len(arrays); ++i) {
    add(py::object(arrays[i]), device, dtype, writable, what + "[" + std::to_string(i) + "]");
  }
}

void ArrayBuffers::add(const py::handle& array, strata_device_t device,
                       const std::optional<std::string>& dtype, bool writable,
                       const std::string& name) {
  if (!PyObject_CheckBuffer(array.ptr())) {
    throw_status(InvalidArgumentError(name + " is a " +
                                      std::string(py::str(py::type::of(array).attr("__name__"))) +
                                      ", not an array (numpy arrays and other buffers work)"));
  }
  py::buffer_info info = py::reinterpret_borrow<py::buffer>(array).request();
  if (writable && info.readonly) {
    throw_status(InvalidArgumentError(name + " is read-only, but the collective writes its "
                                      "result there (np.copy(a) makes a writable array)"));
  }
  throw_if_error(check_layout(info, name));
  Buffer buffer;
  buffer.dtype = value_or_throw(dtype_of(info, dtype, name));
  buffer.data = info.ptr;
  buffer.count = static_cast<uint64_t>(info.size);
  buffer.device = device;
  buffers_.push_back(buffer);
  views_.push_back(std::move(info));
}

}  // namespace strata::python
