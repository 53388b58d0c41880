#include "core/common/status.h"

#include <cstring>
#include <ostream>

namespace strata {

const char* code_name(Code code) {
  switch (code) {
    case Code::kOk: return "OK";
    case Code::kNotSupported: return "NOT_SUPPORTED";
    case Code::kInvalidArgument: return "INVALID_ARGUMENT";
    case Code::kOutOfMemory: return "OUT_OF_MEMORY";
    case Code::kTimedOut: return "TIMED_OUT";
    case Code::kPeerFailed: return "PEER_FAILED";
    case Code::kAborted: return "ABORTED";
    case Code::kNotFound: return "NOT_FOUND";
    case Code::kAlreadyExists: return "ALREADY_EXISTS";
    case Code::kInternal: return "INTERNAL";
    case Code::kUnavailable: return "UNAVAILABLE";
    case Code::kPermissionDenied: return "PERMISSION_DENIED";
    case Code::kFailedPrecondition: return "FAILED_PRECONDITION";
    case Code::kDataLoss: return "DATA_LOSS";
  }
  return "UNKNOWN";
}

namespace {

// The repository root as this file was compiled, e.g. "/src/strata/". Files of
// the same tree share it, which handles paths like tests/core/x.cc that a
// search for "/core/" alone would shorten to core/x.cc.
std::string_view source_root() {
  constexpr std::string_view self = __FILE__;
  constexpr std::string_view tail = "core/common/status.cc";
  return self.ends_with(tail) ? self.substr(0, self.size() - tail.size()) : std::string_view();
}

// What an OK status answers for its message and context. A function-local
// static is ready whenever it is first asked, even from another file's
// static initialiser; `constinit std::string` would say the same, but clang
// (the fuzz build's compiler) cannot evaluate libstdc++ 12's constructor.
const std::string& no_text() {
  static const std::string empty;
  return empty;
}

}  // namespace

Status::Status(Code code, std::string message, std::source_location where) {
  if (code == Code::kOk) return;
  // Paths relative to the repository read better than build-machine paths.
  std::string_view file = where.file_name();
  if (const std::string_view root = source_root(); !root.empty() && file.starts_with(root)) {
    file.remove_prefix(root.size());
  } else {
    for (std::string_view top : {"/core/", "/sdk/", "/plugins/", "/tools/", "/tests/"}) {
      if (auto pos = file.rfind(top); pos != std::string_view::npos) {
        file.remove_prefix(pos + 1);
        break;
      }
    }
  }
  error_.reset(new Error{code, std::move(message), {}, file.data(),
                         static_cast<int>(where.line())});
}

Status::Status(const Status& other)
    : error_(other.ok() ? nullptr : std::make_unique<Error>(*other.error_)) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) error_ = other.ok() ? nullptr : std::make_unique<Error>(*other.error_);
  return *this;
}

const std::string& Status::message() const noexcept {
  return ok() ? no_text() : error_->message;
}

const std::string& Status::context() const noexcept {
  return ok() ? no_text() : error_->context;
}

Status Status::with_context(std::string context) const {
  Status copy = *this;
  if (!copy.ok() && copy.error_->context.empty()) copy.error_->context = std::move(context);
  return copy;
}

Status Status::prefixed(std::string_view prefix) const {
  Status copy = *this;
  if (!copy.ok()) copy.error_->message = std::string(prefix) + ": " + copy.error_->message;
  return copy;
}

std::string Status::to_string() const {
  if (ok()) return "OK";
  const Error& e = *error_;
  std::string out = code_name(e.code);
  out += ": ";
  if (!e.context.empty()) {
    out += e.context;
    out += ": ";
  }
  out += e.message;
  if (e.line > 0) {
    out += " [";
    out += e.file;
    out += ":";
    out += std::to_string(e.line);
    out += "]";
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const Status& s) {
  return os << s.to_string();
}

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace strata
