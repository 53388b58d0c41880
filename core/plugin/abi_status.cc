#include "core/plugin/abi_status.h"

#include <cstring>
#include <exception>

namespace strata {

std::string AbiMessage::str() const {
  return std::string(text, strnlen(text, sizeof text));
}

bool is_known_status(strata_status_t status) {
  return status == STRATA_OK || status == STRATA_IN_PROGRESS ||
         (status <= STRATA_NOT_SUPPORTED && status >= STRATA_DATA_LOSS);
}

Status from_abi(strata_status_t status, const AbiMessage& message,
                std::string_view what, bool allow_in_progress,
                std::source_location where) {
  if (status == STRATA_OK || (allow_in_progress && status == STRATA_IN_PROGRESS)) {
    return Status::Ok();
  }
  std::string text(what);
  const std::string detail = message.str();
  if (!is_known_status(status)) {
    // Here and below, the plugin's own words still say where it went
    // wrong: run()'s messages name the step that failed.
    return Status(Code::kInternal,
                  text + " returned unknown status " + std::to_string(status) +
                      " (plugin bug: see sdk/README.md rule 4)" +
                      (detail.empty() ? "" : ": " + detail),
                  where);
  }
  if (status == STRATA_IN_PROGRESS) {
    return Status(Code::kInternal,
                  text + " returned IN_PROGRESS where only a final status is allowed" +
                      (detail.empty() ? "" : ": " + detail),
                  where);
  }
  text += detail.empty() ? " failed" : ": " + detail;
  return Status(static_cast<Code>(status), std::move(text), where);
}

strata_status_t to_abi(const Status& status) {
  return static_cast<strata_status_t>(status.code());
}

std::string threw_across_abi() {
  static constexpr std::string_view kThrew =
      " threw an exception across the C ABI (sdk/README.md rule 2)";
  try {
    throw;
  } catch (const std::exception& e) {
    return std::string(kThrew) + ": " + e.what();
  } catch (...) {
    return std::string(kThrew) + " (not a std::exception, so it carries no message)";
  }
}

}  // namespace strata
