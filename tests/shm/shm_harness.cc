#include "shm_harness.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/types.h"

namespace strata::shm::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
  }
  std::rename(tmp.c_str(), path.c_str());
}

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

FileStoreHost::FileStoreHost(std::string dir) : dir_(std::move(dir)) {
  services_.struct_size = sizeof services_;
  services_.host = this;
  services_.log = &FileStoreHost::log;
  services_.now_ns = &FileStoreHost::now;
  services_.option = &FileStoreHost::option;
  services_.store_set = &FileStoreHost::set;
  services_.store_get = &FileStoreHost::get;
  sdk::Host::set_fallback(&services_);
}

FileStoreHost::~FileStoreHost() { sdk::Host::set_fallback(nullptr); }

void FileStoreHost::log(void*, strata_log_level_t level, const char* message) {
  if (level >= STRATA_LOG_WARNING) std::cerr << "[log " << level << "] " << message << "\n";
}

int64_t FileStoreHost::now(void*) { return now_ns(); }

const char* FileStoreHost::option(void*, const char*) { return nullptr; }

std::string FileStoreHost::path(const char* key) const {
  std::string name = key;
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  return dir_ + "/store_" + name;
}

strata_status_t FileStoreHost::set(void* store, const char* key, const void* value,
                                   uint64_t length, strata_message_t) {
  auto* self = static_cast<FileStoreHost*>(store);
  write_file_atomically(self->path(key), std::string(static_cast<const char*>(value), length));
  return STRATA_OK;
}

strata_status_t FileStoreHost::get(void* store, const char* key, void* buf, uint64_t capacity,
                                   uint64_t* length, int64_t deadline_ns, strata_message_t msg) {
  auto* self = static_cast<FileStoreHost*>(store);
  const std::string path = self->path(key);
  for (;;) {
    if (::access(path.c_str(), F_OK) == 0) {
      const std::string v = read_file(path);
      *length = v.size();
      if (v.size() > capacity) return STRATA_INVALID_ARGUMENT;
      std::memcpy(buf, v.data(), v.size());
      return STRATA_OK;
    }
    if (now_ns() >= deadline_ns) {
      sdk::write_message(msg, std::string("key ") + key + " did not appear by the deadline");
      return STRATA_TIMED_OUT;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

Rank::Rank(FileStoreHost& host, int rank, int size, std::chrono::milliseconds formation) {
  desc_.struct_size = sizeof desc_;
  desc_.team_id = 7;
  desc_.process_rank = rank;
  desc_.process_count = size;
  desc_.local_count = 1;
  desc_.local_devices = &device_;
  desc_.replica_offset = rank;
  desc_.replica_count = size;
  desc_.store = host.store();
  desc_.deadline_ns = now_ns() + std::chrono::nanoseconds(formation).count();
  desc_.host_count = 0;
}

Outcome Rank::form(sdk::Algorithm& algorithm) {
  const int64_t start = now_ns();
  Outcome o;
  try {
    state_ = algorithm.create_team(desc_);
  } catch (const sdk::Error& e) {
    o.code = e.code();
    o.message = e.what();
  }
  o.seconds = static_cast<double>(now_ns() - start) * 1e-9;
  return o;
}

std::unique_ptr<sdk::Operation> Rank::post(sdk::Algorithm& algorithm, strata_op_t op,
                                           strata_dtype_t dtype, strata_redop_t redop, void* in,
                                           void* out, uint64_t count, int root,
                                           std::chrono::milliseconds timeout, Outcome* failure) {
  call_desc_ = {};
  call_desc_.struct_size = sizeof call_desc_;
  call_desc_.op = op;
  call_desc_.dtype = dtype;
  call_desc_.redop = redop;
  call_desc_.count = count;
  call_desc_.root = root;
  call_desc_.in_place = in == out ? 1 : 0;
  call_desc_.team = &desc_;
  in_ = {in, dtype, count, device_};
  out_ = {out, dtype, count, device_};
  call_ = {};
  call_.struct_size = sizeof call_;
  call_.desc = &call_desc_;
  call_.inputs = &in_;
  call_.outputs = &out_;
  call_.sequence = sequence_++;
  call_.deadline_ns = now_ns() + std::chrono::nanoseconds(timeout).count();
  std::unique_ptr<sdk::Operation> operation;
  try {
    operation = algorithm.create(state_.get(), call_);
    operation->post();
  } catch (const sdk::Error& e) {
    failure->code = e.code();
    failure->message = e.what();
    return nullptr;
  }
  return operation;
}

Outcome Rank::call(sdk::Algorithm& algorithm, strata_op_t op, strata_dtype_t dtype,
                   strata_redop_t redop, void* in, void* out, uint64_t count, int root,
                   std::chrono::milliseconds timeout) {
  const int64_t start = now_ns();
  Outcome o;
  auto operation = post(algorithm, op, dtype, redop, in, out, count, root, timeout, &o);
  if (operation) {
    try {
      // Core's deadline, as core would enforce it: past it, the call is over.
      while (!operation->wait(std::chrono::milliseconds(10))) {
        if (now_ns() > call_.deadline_ns + std::chrono::nanoseconds(timeout).count()) {
          operation->abort();
          o.code = STRATA_TIMED_OUT;
          o.message = "the harness gave up: twice the call's timeout passed";
          break;
        }
      }
    } catch (const sdk::Error& e) {
      o.code = e.code();
      o.message = e.what();
    }
  }
  o.seconds = static_cast<double>(now_ns() - start) * 1e-9;
  return o;
}

Job::Job(int size) : size_(size), pids_(static_cast<size_t>(size), 0),
                     reaped_(static_cast<size_t>(size), false) {
  char pattern[] = "/tmp/strata-shm-test-XXXXXX";
  const char* made = ::mkdtemp(pattern);
  if (made == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = made;
}

Job::~Job() {
  finish(std::chrono::milliseconds(0));
  DIR* d = ::opendir(dir_.c_str());
  if (d != nullptr) {
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') ::unlink((dir_ + "/" + e->d_name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir_.c_str());
}

void Job::start(const std::function<int(int, FileStoreHost&)>& body) {
  std::cout.flush();
  std::cerr.flush();
  for (int r = 0; r < size_; ++r) {
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      // Every rank in one process group, led by rank 0, so the parent can
      // kill the whole job at once.
      ::setpgid(0, r == 0 ? 0 : pids_[0]);
      int status = 99;
      {
        FileStoreHost host(dir_);
        try {
          status = body(r, host);
        } catch (const std::exception& e) {
          report_from(r, std::string("exception: ") + e.what());
        }
      }
      std::cout.flush();
      std::cerr.flush();
      ::_exit(status);
    }
    ::setpgid(pid, r == 0 ? pid : pids_[0]);
    pids_[static_cast<size_t>(r)] = pid;
  }
}

int Job::reap(int rank, std::chrono::milliseconds timeout) {
  const auto until = Clock::now() + timeout;
  const auto i = static_cast<size_t>(rank);
  for (;;) {
    int status = 0;
    const pid_t got = ::waitpid(pids_[i], &status, WNOHANG);
    if (got == pids_[i]) {
      reaped_[i] = true;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    }
    if (got < 0) return -1000;
    if (Clock::now() >= until) return -2000;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

bool Job::wait_stopped(int rank, std::chrono::milliseconds timeout) {
  const auto until = Clock::now() + timeout;
  const auto i = static_cast<size_t>(rank);
  for (;;) {
    int status = 0;
    const pid_t got = ::waitpid(pids_[i], &status, WNOHANG | WUNTRACED);
    if (got == pids_[i] && WIFSTOPPED(status)) return true;
    if (got == pids_[i]) reaped_[i] = true;
    if (got != 0 || Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

bool Job::finish(std::chrono::milliseconds timeout) {
  bool clean = true;
  for (int r = 0; r < size_; ++r) {
    if (pids_[static_cast<size_t>(r)] == 0 || reaped_[static_cast<size_t>(r)]) continue;
    if (reap(r, timeout) == -2000) clean = false;
  }
  if (pids_[0] != 0) ::kill(-pids_[0], SIGKILL);
  for (int r = 0; r < size_; ++r) {
    const auto i = static_cast<size_t>(r);
    if (pids_[i] == 0 || reaped_[i]) continue;
    ::kill(pids_[i], SIGKILL);
    ::kill(pids_[i], SIGCONT);
    reap(r, std::chrono::milliseconds(10000));
  }
  return clean;
}

std::string Job::report(int rank) const {
  return read_file(dir_ + "/report" + std::to_string(rank));
}

void Job::report_from(int rank, const std::string& text) const {
  write_file_atomically(dir_ + "/report" + std::to_string(rank), text);
}

bool Job::release_after_reports(const std::vector<int>& ranks, std::chrono::milliseconds timeout) {
  const auto until = Clock::now() + timeout;
  bool all = false;
  while (!all && Clock::now() < until) {
    all = true;
    for (int r : ranks) {
      all = all && ::access((dir_ + "/report" + std::to_string(r)).c_str(), F_OK) == 0;
    }
    if (!all) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  signal("release");
  return all;
}

void Job::signal(const std::string& name) const {
  write_file_atomically(dir_ + "/signal_" + name, "");
}

bool Job::wait_for(const std::string& name, std::chrono::milliseconds timeout) const {
  const auto until = Clock::now() + timeout;
  const std::string path = dir_ + "/signal_" + name;
  while (::access(path.c_str(), F_OK) != 0) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

std::set<std::string> dev_shm_entries() {
  std::set<std::string> names;
  DIR* d = ::opendir("/dev/shm");
  if (d == nullptr) return names;
  while (dirent* e = ::readdir(d)) {
    // Open MPI's shared-memory segments belong to other jobs on this
    // machine (the tests' processes never load MPI) and come and go.
    if (e->d_name[0] != '.' && std::strncmp(e->d_name, "vader_segment.", 14) != 0) {
      names.insert(e->d_name);
    }
  }
  ::closedir(d);
  return names;
}

ShmOptions test_options() {
  ShmOptions o;
  o.chunk_bytes = 1024;
  o.direct_bytes = 64;
  o.slots = 2;
  return o;
}

std::unique_ptr<sdk::Algorithm> make_algorithm(strata_op_t op, const ShmOptions& options) {
  switch (op) {
    case STRATA_ALL_REDUCE: return make_all_reduce_sliced(options);
    case STRATA_BROADCAST: return make_broadcast_copy(options);
    case STRATA_ALL_GATHER: return make_all_gather_copy(options);
    case STRATA_REDUCE_SCATTER: return make_reduce_scatter_sliced(options);
    case STRATA_REDUCE: return make_reduce_sliced(options);
    default: return make_barrier_flags(options);
  }
}

std::unique_ptr<sdk::Algorithm> make_mapped_algorithm(strata_op_t op, const ShmOptions& options) {
  // The harness's calls name no device type: the shm_host id is not looked at.
  constexpr uint32_t kAnyType = 0;
  switch (op) {
    case STRATA_ALL_REDUCE: return make_all_reduce_mapped(options, kAnyType);
    case STRATA_BROADCAST: return make_broadcast_mapped(options, kAnyType);
    case STRATA_ALL_GATHER: return make_all_gather_mapped(options, kAnyType);
    default:
      throw std::invalid_argument(std::string("shm has no mapped ") + sdk::op_name(op));
  }
}

}  // namespace strata::shm::testing
