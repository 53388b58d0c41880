// Exceptions for plugin code, and the guard that turns them into statuses.
//
// Plugin authors write ordinary C++ and throw sdk::Error (or anything derived
// from std::exception). The SDK's trampolines catch everything at the ABI
// boundary, so no exception ever reaches core (sdk/README.md, rule 2).
#ifndef STRATA_SDK_ERROR_H_
#define STRATA_SDK_ERROR_H_

#include <exception>
#include <string>
#include <string_view>

#include "strata/abi/status.h"

namespace strata::sdk {

class Error : public std::exception {
 public:
  Error(strata_status_t code, std::string message)
      : code_(code), message_(std::move(message)) {}
  strata_status_t code() const noexcept { return code_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  strata_status_t code_;
  std::string message_;
};

// A polite decline: the selector moves on to the next candidate.
inline Error NotSupported(std::string why) {
  return Error(STRATA_NOT_SUPPORTED, std::move(why));
}
inline Error InvalidArgument(std::string why) {
  return Error(STRATA_INVALID_ARGUMENT, std::move(why));
}

// Copy `text` into a caller-owned message buffer, truncating safely.
void write_message(strata_message_t msg, std::string_view text) noexcept;

// Throws sdk::Error when `status` is an error; `what` names the operation.
void check(strata_status_t status, std::string_view what,
           const char* message);

// Runs `body` and converts any exception into a status plus message.
// `body` returns strata_status_t.
template <class Body>
strata_status_t guard(strata_message_t msg, Body&& body) noexcept {
  try {
    return body();
  } catch (const Error& e) {
    write_message(msg, e.what());
    return e.code();
  } catch (const std::bad_alloc&) {
    write_message(msg, "out of memory");
    return STRATA_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    write_message(msg, e.what());
    return STRATA_INTERNAL;
  } catch (...) {
    write_message(msg, "unknown exception");
    return STRATA_INTERNAL;
  }
}

}  // namespace strata::sdk

#endif  // STRATA_SDK_ERROR_H_
