// Status: every failure in Strata, with the context a person needs to act
// on it. Library code returns a Status (or StatusOr<T>) and never aborts.
//
// A Status records where it was made (file:line) and, once, the context of
// the layer that understands it best, e.g.
//   TIMED_OUT: plugin=grpc_ring algo=ring op=all_reduce rank=3/8 seq=1207:
//   no answer from rank 5 within 30s [core/collective/progress.cc:61]
#ifndef STRATA_CORE_COMMON_STATUS_H_
#define STRATA_CORE_COMMON_STATUS_H_

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace strata {

// Values match strata_status_t in sdk/include/strata/abi/status.h.
enum class Code : int32_t {
  kOk = 0,
  kNotSupported = -1,
  kInvalidArgument = -2,
  kOutOfMemory = -3,
  kTimedOut = -4,
  kPeerFailed = -5,
  kAborted = -6,
  kNotFound = -7,
  kAlreadyExists = -8,
  kInternal = -9,
  kUnavailable = -10,
  kPermissionDenied = -11,
  kFailedPrecondition = -12,
  kDataLoss = -13,
};

const char* code_name(Code code);  // "TIMED_OUT"

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  // A code of kOk makes an OK status; its message is dropped.
  Status(Code code, std::string message,
         std::source_location where = std::source_location::current());
  Status(const Status& other);
  Status& operator=(const Status& other);
  // A moved-from Status is OK (its error went with the move).
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  static Status Ok() noexcept { return Status(); }
  bool ok() const noexcept { return error_ == nullptr; }
  Code code() const noexcept { return ok() ? Code::kOk : error_->code; }
  const std::string& message() const noexcept;  // empty when OK
  const std::string& context() const noexcept;  // empty when OK
  const char* file() const noexcept { return ok() ? "" : error_->file; }
  int line() const noexcept { return ok() ? 0 : error_->line; }

  // Returns a copy with `context` set; an existing context is kept, so the
  // innermost layer that knows the plugin, rank and sequence wins. An OK
  // status stays OK, without context.
  Status with_context(std::string context) const;
  // Returns a copy whose message is prefixed: "loading x.so: <message>".
  Status prefixed(std::string_view prefix) const;

  // "CODE: context: message [file:line]"
  std::string to_string() const;

 private:
  struct Error {
    Code code;
    std::string message;
    std::string context;
    const char* file;
    int line;
  };
  // Null when OK: a success is one pointer to pass, test and drop, which
  // every layer of every collective call does several times.
  std::unique_ptr<Error> error_;
};

std::ostream& operator<<(std::ostream& os, const Status& s);

#define STRATA_DEFINE_ERROR(Name, CodeValue)                               \
  inline Status Name(std::string message, std::source_location where =     \
                                              std::source_location::current()) { \
    return Status(CodeValue, std::move(message), where);                  \
  }
STRATA_DEFINE_ERROR(NotSupportedError, Code::kNotSupported)
STRATA_DEFINE_ERROR(InvalidArgumentError, Code::kInvalidArgument)
STRATA_DEFINE_ERROR(OutOfMemoryError, Code::kOutOfMemory)
STRATA_DEFINE_ERROR(TimedOutError, Code::kTimedOut)
STRATA_DEFINE_ERROR(PeerFailedError, Code::kPeerFailed)
STRATA_DEFINE_ERROR(AbortedError, Code::kAborted)
STRATA_DEFINE_ERROR(NotFoundError, Code::kNotFound)
STRATA_DEFINE_ERROR(AlreadyExistsError, Code::kAlreadyExists)
STRATA_DEFINE_ERROR(InternalError, Code::kInternal)
STRATA_DEFINE_ERROR(UnavailableError, Code::kUnavailable)
STRATA_DEFINE_ERROR(PermissionDeniedError, Code::kPermissionDenied)
STRATA_DEFINE_ERROR(FailedPreconditionError, Code::kFailedPrecondition)
STRATA_DEFINE_ERROR(DataLossError, Code::kDataLoss)
#undef STRATA_DEFINE_ERROR

// What an errno value means ("Connection refused"), for error messages.
std::string errno_text(int err);

// A value or the Status explaining why there is none.
template <class T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : v_(std::move(status)) {  // NOLINT
    if (std::get<Status>(v_).ok()) {
      v_ = InternalError("StatusOr constructed from an OK status");
    }
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace strata

#define STRATA_CONCAT_INNER(a, b) a##b
#define STRATA_CONCAT(a, b) STRATA_CONCAT_INNER(a, b)

#define STRATA_RETURN_IF_ERROR(expr)          \
  do {                                        \
    ::strata::Status strata_status_ = (expr); \
    if (!strata_status_.ok()) return strata_status_; \
  } while (0)

#define STRATA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#define STRATA_ASSIGN_OR_RETURN(lhs, expr) \
  STRATA_ASSIGN_OR_RETURN_IMPL(STRATA_CONCAT(strata_or_, __LINE__), lhs, expr)

#endif  // STRATA_CORE_COMMON_STATUS_H_
