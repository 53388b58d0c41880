#include "core/cluster/file_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <thread>

#include "core/cluster/duration_text.h"
#include "core/cluster/store_counter.h"
#include "core/common/clock.h"
#include "strata/sdk/error.h"

namespace strata {
namespace {

using namespace std::chrono_literals;

// add() has no deadline in the store API; a lock held longer than this means
// a process hung (or died on a file system that keeps its locks).
constexpr auto kLockTimeout = 30s;
constexpr auto kFirstPoll = 1ms;
constexpr auto kMaxKeyPoll = 50ms;  // a key may take seconds to appear
constexpr auto kMaxLockPoll = 5ms;  // a lock is held for well under that
constexpr size_t kMaxNameBytes = 200;  // file systems allow 255

// Closes a descriptor on every path out, exceptions included.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { if (fd_ >= 0) ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Sleeps with growing intervals, never past the deadline.
class Poll {
 public:
  explicit Poll(Clock::duration max) : max_(max) {}
  // False once the deadline has passed.
  bool wait(Deadline deadline) {
    const auto now = Clock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(step_, deadline - now));
    step_ = std::min<Clock::duration>(step_ * 3 / 2, max_);
    return true;
  }

 private:
  Clock::duration max_;
  Clock::duration step_ = kFirstPoll;
};

// Unique across threads, processes and hosts sharing the directory.
std::string temp_name() {
  static const uint64_t process_salt = [] {
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd();
  }();
  static std::atomic<uint64_t> counter{0};
  char buf[80];
  std::snprintf(buf, sizeof buf, ".tmp.%d.%016llx.%llu", static_cast<int>(::getpid()),
                static_cast<unsigned long long>(process_salt),
                static_cast<unsigned long long>(counter.fetch_add(1)));
  return buf;
}

class FileStore final : public sdk::Store {
 public:
  explicit FileStore(std::filesystem::path dir) : dir_(std::move(dir)) {}

  void set(std::string_view key, std::string_view value) override {
    write_atomically(key, value);
  }

  std::string get(std::string_view key, int64_t deadline_ns) override {
    const Deadline deadline = from_ns(deadline_ns);
    const auto start = Clock::now();
    Poll poll(kMaxKeyPoll);
    for (;;) {
      if (auto value = read_value(key)) return *std::move(value);
      if (!poll.wait(deadline)) {
        throw sdk::Error(STRATA_TIMED_OUT,
                         "key '" + std::string(key) + "' did not appear in directory '" +
                             dir_.string() + "' within " + seconds_text(Clock::now() - start));
      }
    }
  }

  int64_t add(std::string_view key, int64_t delta) override {
    const std::string lock_path = (dir_ / ".lock").string();
    Fd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (lock.get() < 0) fail("opening lock file '" + lock_path + "'", errno);
    // LOCK_NB and polling rather than a blocking flock: nothing may wait
    // without a deadline.
    const Deadline deadline = deadline_after(kLockTimeout);
    Poll poll(kMaxLockPoll);
    while (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) fail("locking '" + lock_path + "'", errno);
      if (!poll.wait(deadline)) {
        throw sdk::Error(STRATA_TIMED_OUT, "could not lock '" + lock_path + "' within " +
                                               seconds_text(kLockTimeout) +
                                               " to add to key '" + std::string(key) +
                                               "'; another process holds it");
      }
    }
    const std::string slot = read_value(key).value_or("");
    auto sum = add_to_counter(key, slot, delta);
    if (!sum.ok()) throw sdk::InvalidArgument(sum.status().message());
    const int64_t value = *sum;
    write_atomically(key, std::to_string(value));
    return value;  // the lock goes with `lock`'s descriptor
  }

 private:
  [[noreturn]] void fail(const std::string& what, int err) const {
    throw sdk::Error(STRATA_UNAVAILABLE, "file store: " + what + ": " + errno_text(err));
  }

  std::filesystem::path path_of(std::string_view key) const {
    return dir_ / file_store_file_name(key);
  }

  // nullopt while the key's file does not exist.
  std::optional<std::string> read_value(std::string_view key) const {
    const std::string path = path_of(key).string();
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) {
      if (errno == ENOENT) return std::nullopt;
      fail("reading key '" + std::string(key) + "' from '" + path + "'", errno);
    }
    std::string value;
    char buf[8192];
    for (;;) {
      const ssize_t n = ::read(fd.get(), buf, sizeof buf);
      if (n == 0) return value;
      if (n < 0) {
        if (errno == EINTR) continue;
        fail("reading key '" + std::string(key) + "' from '" + path + "'", errno);
      }
      value.append(buf, static_cast<size_t>(n));
    }
  }

  void write_atomically(std::string_view key, std::string_view value) const {
    const std::string path = path_of(key).string();
    const std::string temp = (dir_ / temp_name()).string();
    const std::string what = "writing key '" + std::string(key) + "' to '" + path + "'";
    {
      Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
      if (fd.get() < 0) fail(what, errno);
      size_t done = 0;
      while (done < value.size()) {
        const ssize_t n = ::write(fd.get(), value.data() + done, value.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          const int err = errno;
          ::unlink(temp.c_str());
          fail(what, err);
        }
        done += static_cast<size_t>(n);
      }
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
      const int err = errno;
      ::unlink(temp.c_str());
      fail(what, err);
    }
  }

  std::filesystem::path dir_;
};

class FileStoreType final : public sdk::StoreType {
 public:
  FileStoreType()
      : StoreType("file", "one file per key in a directory every process can reach; "
                          "address is the directory") {}

  std::unique_ptr<sdk::Store> open(std::string_view address, int, int, int64_t) override {
    if (address.empty()) {
      throw sdk::InvalidArgument("the file store needs a directory, e.g. file:/shared/job1");
    }
    const std::filesystem::path dir(address);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      throw sdk::Error(STRATA_UNAVAILABLE, "cannot create store directory '" + dir.string() +
                                               "': " + ec.message());
    }
    // Creating the lock file now turns a read-only or foreign directory into
    // an error at open, not at the first add.
    const std::string lock_path = (dir / ".lock").string();
    Fd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (lock.get() < 0) {
      throw sdk::Error(STRATA_UNAVAILABLE, "cannot use store directory '" + dir.string() +
                                               "': " + errno_text(errno));
    }
    return std::make_unique<FileStore>(dir);
  }
};

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::string file_store_file_name(std::string_view key) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = "k_";  // never empty, never starts with "."
  for (const char c : key) {
    const auto u = static_cast<unsigned char>(c);
    // Locale-independent on purpose: every host must map a key to one name.
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (plain) {
      name += c;
    } else {
      name += '%';
      name += kHex[u >> 4];
      name += kHex[u & 15];
    }
  }
  if (name.size() > kMaxNameBytes) {
    char tail[24];
    std::snprintf(tail, sizeof tail, "~%016llx", static_cast<unsigned long long>(fnv1a(key)));
    name.resize(kMaxNameBytes - std::strlen(tail));
    name += tail;
  }
  return name;
}

std::unique_ptr<sdk::StoreType> make_file_store_type() {
  return std::make_unique<FileStoreType>();
}

}  // namespace strata
