// Drives shm teams of real processes without core: the test forks one child
// per rank, each child installs host services whose team store is a
// directory of files (so forked processes share it), builds the team through
// the plugin's own algorithm objects and runs calls on it. A child reports
// through a file in the job's directory; the parent reaps every child by a
// deadline (killing the whole process group past it), so no test leaves an
// orphan.
#ifndef STRATA_TESTS_SHM_SHM_HARNESS_H_
#define STRATA_TESTS_SHM_SHM_HARNESS_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "shm_algorithm.h"
#include "strata/abi/registrar.h"

namespace strata::shm::testing {

// A team store in a directory: set writes a file atomically (rename), get
// polls for it until the deadline.
class FileStoreHost {
 public:
  explicit FileStoreHost(std::string dir);  // installs itself as the SDK's fallback
  ~FileStoreHost();
  void* store() { return this; }

 private:
  static void log(void* host, strata_log_level_t level, const char* message);
  static int64_t now(void* host);
  static const char* option(void* host, const char* key);
  static strata_status_t set(void* store, const char* key, const void* value, uint64_t length,
                             strata_message_t msg);
  static strata_status_t get(void* store, const char* key, void* buf, uint64_t capacity,
                             uint64_t* length, int64_t deadline_ns, strata_message_t msg);
  std::string path(const char* key) const;

  std::string dir_;
  strata_host_services_t services_{};
};

int64_t now_ns();

// What one call or team formation ended with.
struct Outcome {
  strata_status_t code = STRATA_OK;
  std::string message;
  double seconds = 0;
};

// One rank's view inside a child: the team description and its state.
class Rank {
 public:
  Rank(FileStoreHost& host, int rank, int size, std::chrono::milliseconds formation);
  strata_team_desc_t& desc() { return desc_; }
  // Forms the team for `algorithm`.
  Outcome form(sdk::Algorithm& algorithm);
  // Builds the call and posts it (nullptr and the error when that failed).
  std::unique_ptr<sdk::Operation> post(sdk::Algorithm& algorithm, strata_op_t op,
                                       strata_dtype_t dtype, strata_redop_t redop, void* in,
                                       void* out, uint64_t count, int root,
                                       std::chrono::milliseconds timeout, Outcome* failure);
  // post() then waits until done or failed.
  Outcome call(sdk::Algorithm& algorithm, strata_op_t op, strata_dtype_t dtype,
               strata_redop_t redop, void* in, void* out, uint64_t count, int root,
               std::chrono::milliseconds timeout);

 private:
  strata_team_desc_t desc_{};
  strata_device_t device_{0, 0};
  std::unique_ptr<sdk::TeamState> state_;
  uint64_t sequence_ = 0;
  strata_call_desc_t call_desc_{};
  strata_buffer_t in_{}, out_{};
  strata_call_t call_{};
};

// A job of `size` forked ranks sharing a fresh directory.
class Job {
 public:
  explicit Job(int size);
  ~Job();  // kills and reaps whatever is left, removes the directory
  const std::string& dir() const { return dir_; }
  // Starts every rank running body(rank) in its own child; the child's exit
  // status is what body returns.
  void start(const std::function<int(int rank, FileStoreHost& host)>& body);
  pid_t pid(int rank) const { return pids_[static_cast<size_t>(rank)]; }
  // Waits for `rank` to exit by `timeout`; its exit status, or -signal.
  int reap(int rank, std::chrono::milliseconds timeout);
  // Waits for `rank` to stop (SIGSTOP) by `timeout`.
  bool wait_stopped(int rank, std::chrono::milliseconds timeout);
  // Reaps everything within `timeout`, killing stragglers; whether every
  // rank exited on its own.
  bool finish(std::chrono::milliseconds timeout);
  // A child's report (report_from(rank, text) in the child), or "".
  std::string report(int rank) const;
  void report_from(int rank, const std::string& text) const;
  // Waits until every rank in `ranks` reported, then lets the children that
  // wait_released() exit: a rank that failed early stays alive until the
  // others have seen what they are tested for, so they do not see it exit.
  bool release_after_reports(const std::vector<int>& ranks, std::chrono::milliseconds timeout);
  void wait_released(std::chrono::milliseconds timeout) const { wait_for("release", timeout); }
  // A named signal from the parent to the children.
  void signal(const std::string& name) const;
  bool wait_for(const std::string& name, std::chrono::milliseconds timeout) const;

 private:
  int size_;
  std::string dir_;
  std::vector<pid_t> pids_;
  std::vector<bool> reaped_;
};

// Entries of /dev/shm now, but Open MPI's segments (other jobs').
std::set<std::string> dev_shm_entries();

// The algorithm object for `op`, with options for tests (small chunks so a
// few thousand elements span many).
std::unique_ptr<sdk::Algorithm> make_algorithm(strata_op_t op, const ShmOptions& options);
// shm/<op>/mapped for all_reduce, broadcast and all_gather: its calls need
// shm_host buffers (SharedHeap) allocated in the rank's own process.
std::unique_ptr<sdk::Algorithm> make_mapped_algorithm(strata_op_t op, const ShmOptions& options);
ShmOptions test_options();

}  // namespace strata::shm::testing

#endif  // STRATA_TESTS_SHM_SHM_HARNESS_H_
