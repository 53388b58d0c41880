#include "python/src/common/status_error.h"

namespace strata::python {

StatusError::StatusError(Status status)
    : std::runtime_error("strata: " + status.to_string()), status_(std::move(status)) {}

void throw_status(const Status& status) { throw StatusError(status); }

}  // namespace strata::python
