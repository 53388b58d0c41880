// A Status carried through C++ exceptions to Python. The bindings throw it
// where a call failed; _core's exception translator turns it into the
// strata.*Error of its code, with code, message and context as attributes.
// Torch's Work.wait() rethrows the exception_ptr a strata Work finished
// with, and the translator (pybind11's, shared with torch) sees it too.
#ifndef STRATA_PYTHON_SRC_COMMON_STATUS_ERROR_H_
#define STRATA_PYTHON_SRC_COMMON_STATUS_ERROR_H_

#include <stdexcept>
#include <utility>

#include "core/common/status.h"

namespace strata::python {

class StatusError : public std::runtime_error {
 public:
  // what(): "strata: CODE: context: message [file:line]".
  explicit StatusError(Status status);
  const Status& status() const noexcept { return status_; }

 private:
  Status status_;
};

[[noreturn]] void throw_status(const Status& status);

inline void throw_if_error(const Status& status) {
  if (!status.ok()) throw_status(status);
}

template <class T>
T value_or_throw(StatusOr<T> value) {
  if (!value.ok()) throw_status(value.status());
  return std::move(*value);
}

}  // namespace strata::python

#endif  // STRATA_PYTHON_SRC_COMMON_STATUS_ERROR_H_
