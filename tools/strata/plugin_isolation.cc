#include "tools/strata/plugin_isolation.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <vector>

#include "core/common/clock.h"
#include "core/common/units.h"
#include "core/plugin/plugin_loader.h"
#include "core/runtime/runtime.h"
#include "tools/strata/launch_child.h"

extern char** environ;

namespace strata::cli {
namespace fs = std::filesystem;
namespace {

// What a child printed; only the tail of stderr matters (its last words).
constexpr size_t kKeptBytes = 64 * 1024;
constexpr std::chrono::milliseconds kPollSlice{50};

struct ProbeResult {
  bool timed_out = false;
  int wait_status = 0;
  std::string out;
  std::string err;
};

// Reads what is there now; false once the writer closed the pipe.
bool drain(int fd, std::string& into) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      into.append(buf, static_cast<size_t>(n));
      if (into.size() > kKeptBytes) into.erase(0, into.size() - kKeptBytes);
      continue;
    }
    if (n == 0) return false;
    return errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

std::vector<std::string> child_env() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!std::string_view(*e).starts_with("STRATA_LOG_LEVEL=")) env.emplace_back(*e);
  }
  env.emplace_back("STRATA_LOG_LEVEL=debug");  // its last line names the step
  return env;
}

StatusOr<ProbeResult> probe_one(const fs::path& self, const std::string& config_file,
                                const fs::path& file, std::chrono::nanoseconds timeout) {
  SpawnRequest request;
  request.what = "the probe of " + file.string();
  request.path = self.string();
  request.argv = {self.string(), "info", "--probe-plugin", file.string()};
  if (!config_file.empty()) {
    request.argv.push_back("--config");
    request.argv.push_back(config_file);
  }
  request.env = child_env();
  ::pthread_sigmask(SIG_SETMASK, nullptr, &request.signal_mask);
  STRATA_ASSIGN_OR_RETURN(SpawnedChild child, spawn_child(request));

  ProbeResult result;
  const Deadline deadline = deadline_after(timeout);
  bool out_open = true;
  bool err_open = true;
  for (;;) {
    pollfd fds[2] = {{child.out_fd, POLLIN, 0}, {child.err_fd, POLLIN, 0}};
    (void)::poll(fds, 2, static_cast<int>(kPollSlice.count()));
    if (out_open) out_open = drain(child.out_fd, result.out);
    if (err_open) err_open = drain(child.err_fd, result.err);
    if (const auto status = peek_exit(child.pid)) {
      if (out_open) drain(child.out_fd, result.out);
      if (err_open) drain(child.err_fd, result.err);
      result.wait_status = *status;
      break;
    }
    if (Clock::now() >= deadline) {
      result.timed_out = true;
      ::kill(-child.pid, SIGKILL);  // its whole process group
      break;
    }
  }
  int reaped = 0;
  while (::waitpid(child.pid, &reaped, 0) < 0 && errno == EINTR) {
  }
  ::close(child.out_fd);
  ::close(child.err_fd);
  return result;
}

std::string last_line(const std::string& text) {
  size_t end = text.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  const size_t begin = text.rfind('\n', end);
  std::string line = text.substr(begin == std::string::npos ? 0 : begin + 1,
                                 end + 1 - (begin == std::string::npos ? 0 : begin + 1));
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  return line;
}

// Why the file must not be loaded here, or "" when the child came through.
std::string verdict(const ProbeResult& r, std::chrono::nanoseconds timeout) {
  const std::string last = last_line(r.err);
  const std::string last_words = last.empty() ? "" : "; its last log line: " + last;
  if (r.timed_out) {
    return "hung: still loading after " + format_duration(timeout) +
           " in a child process (strata info --isolate), which was killed" + last_words;
  }
  if (WIFSIGNALED(r.wait_status)) {
    return "crashed: loading it killed a child process with " +
           signal_name(WTERMSIG(r.wait_status)) + " (strata info --isolate)" + last_words;
  }
  if (r.out.find(kProbeFinished) == std::string::npos) {
    return "ended the process while loading (a child process " +
           describe_wait_status(r.wait_status) +
           "; no plugin may call exit() or abort(), sdk/README.md rule 2)" + last_words;
  }
  return "";
}

}  // namespace

StatusOr<std::map<fs::path, std::string>> probe_plugins(const fs::path& self,
                                                        const std::string& config_file,
                                                        const LoaderOptions& options,
                                                        std::chrono::nanoseconds timeout) {
  std::map<fs::path, std::string> quarantined;
  for (const fs::path& file : PluginLoader::candidate_files(options)) {
    // The loader skips these by their file name without opening them.
    if (!plugin_filtered_out(plugin_name_from_file(file), options).empty()) continue;
    STRATA_ASSIGN_OR_RETURN(ProbeResult result, probe_one(self, config_file, file, timeout));
    if (std::string why = verdict(result, timeout); !why.empty()) {
      quarantined.emplace(file, std::move(why));
    }
  }
  return quarantined;
}

int run_probe(Config config, const fs::path& file) {
  // A plugin that crashes here is what the parent wants to learn about,
  // not a core file in the user's directory.
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  config.plugins.path.clear();  // this one file, nothing discovered
  RuntimeOptions options;
  options.discover_plugins = false;
  options.plugin_files = {file};
  {
    auto runtime = Runtime::create(std::move(config), options);
    // Refused or loaded, the file did not take the process with it; the
    // parent loads it again and reports the loader's verdict.
    std::cout << (runtime.ok() ? "loaded" : "refused: " + runtime.status().message()) << "\n";
  }  // unload runs here
  std::cout << kProbeFinished << std::endl;
  return 0;
}

}  // namespace strata::cli
