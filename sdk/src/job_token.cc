#include "strata/sdk/job_token.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace strata::sdk {
namespace {

std::string trimmed(std::string_view text) {
  const char* space = " \t\r\n";
  const size_t first = text.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(space);
  return std::string(text.substr(first, last - first + 1));
}

std::string errno_text(int err) { return std::strerror(err); }

// Checks a token's shape wherever it came from.
bool accept(std::string value, std::string source, JobToken* out, std::string* error) {
  if (value.empty()) {
    *error = "the job token from " + source + " is empty";
    return false;
  }
  if (value.size() < kMinJobTokenLength) {
    *error = "the job token from " + source + " has " + std::to_string(value.size()) +
             " characters; at least " + std::to_string(kMinJobTokenLength) +
             " are needed (strata launch generates one)";
    return false;
  }
  out->value = std::move(value);
  out->source = std::move(source);
  return true;
}

bool read_token_file(const std::string& path, const char* named_by, JobToken* out,
                     std::string* error) {
  const std::string source = "file " + path + " (" + named_by + ")";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open the job token " + source + ": " + errno_text(errno);
    return false;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    *error = "the job token " + source + " is not a regular file";
    return false;
  }
  // ssh's rule for private keys: a secret others can read is no secret.
  if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    ::close(fd);
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", static_cast<unsigned>(info.st_mode & 0777));
    *error = "the job token " + source + " can be read by other users (mode " + mode +
             "); chmod 600 it";
    return false;
  }
  std::string text;
  char buffer[512];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      *error = "cannot read the job token " + source + ": " + errno_text(err);
      return false;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > kMaxJobTokenLength) {
      ::close(fd);
      *error = "the job token " + source + " is longer than " +
               std::to_string(kMaxJobTokenLength) + " bytes; a token is one line";
      return false;
    }
  }
  ::close(fd);
  return accept(trimmed(text), source, out, error);
}

}  // namespace

bool load_job_token(const std::string& configured_file, JobToken* out, std::string* error) {
  *out = JobToken{};
  if (!configured_file.empty()) return read_token_file(configured_file, "from the config", out, error);
  if (const char* file = std::getenv(kJobTokenFileEnv); file != nullptr && file[0] != '\0') {
    return read_token_file(file, kJobTokenFileEnv, out, error);
  }
  if (const char* value = std::getenv(kJobTokenEnv); value != nullptr) {
    if (std::strlen(value) > kMaxJobTokenLength) {
      *error = std::string("the job token in ") + kJobTokenEnv + " is longer than " +
               std::to_string(kMaxJobTokenLength) + " bytes";
      return false;
    }
    return accept(trimmed(value), std::string("environment ") + kJobTokenEnv, out, error);
  }
  return true;  // none configured; the caller decides whether that is allowed
}

bool job_tokens_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  // volatile keeps the compiler from turning this into an early-exit memcmp.
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = static_cast<unsigned char>(diff | (static_cast<unsigned char>(a[i]) ^
                                              static_cast<unsigned char>(b[i])));
  }
  return diff == 0;
}

std::string generate_job_token() {
  unsigned char bytes[32];
  size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return {};
    got += static_cast<size_t>(n);
  }
  static const char* digits = "0123456789abcdef";
  std::string token;
  token.reserve(2 * sizeof bytes);
  for (unsigned char byte : bytes) {
    token.push_back(digits[byte >> 4]);
    token.push_back(digits[byte & 15]);
  }
  return token;
}

bool write_job_token_file(const std::string& path, const std::string& token, std::string* error) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = "cannot create " + temporary + ": " + errno_text(errno);
    return false;
  }
  const std::string line = token + "\n";
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      *error = "cannot write " + temporary + ": " + errno_text(err);
      return false;
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(temporary.c_str());
    *error = "cannot flush " + temporary + ": " + errno_text(err);
    return false;
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temporary.c_str());
    *error = "cannot rename " + temporary + " to " + path + ": " + errno_text(err);
    return false;
  }
  return true;
}

}  // namespace strata::sdk
