#include "tools/strata/launch_output.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <utility>

namespace strata::cli {

void launch_message(const std::string& line) {
  write_fully(STDERR_FILENO, "strata launch: " + line + "\n");
}

void OutputForwarder::add(int fd, std::string prefix, int out_fd) {
  streams_.push_back({fd, LinePrefixer(std::move(prefix), out_fd)});
}

bool OutputForwarder::pump(int wake_fd, int timeout_ms) {
  std::vector<pollfd> fds;
  fds.reserve(streams_.size() + 1);
  fds.push_back({wake_fd, POLLIN, 0});
  for (const Stream& s : streams_) fds.push_back({s.fd, POLLIN, 0});
  if (::poll(fds.data(), fds.size(), timeout_ms) <= 0) return false;  // timeout or EINTR

  char buf[64 * 1024];
  std::vector<Stream> still_open;
  still_open.reserve(streams_.size());
  for (size_t i = 0; i < streams_.size(); ++i) {
    Stream& s = streams_[i];
    // POLLHUP without POLLIN still needs a read: it returns 0 (end of file)
    // once the buffered bytes are gone.
    if (fds[i + 1].revents != 0) {
      const ssize_t n = ::read(s.fd, buf, sizeof buf);
      if (n > 0) s.prefixer.feed(std::string_view(buf, static_cast<size_t>(n)));
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        s.prefixer.flush();
        ::close(s.fd);
        continue;
      }
    }
    still_open.push_back(std::move(s));
  }
  streams_ = std::move(still_open);
  return fds[0].revents != 0;
}

void OutputForwarder::close_all() {
  // Bytes already in a pipe are not lost just because the writer lives on:
  // one last non-blocking read of each stream before it is closed.
  char buf[64 * 1024];
  for (Stream& s : streams_) {
    const ssize_t n = ::read(s.fd, buf, sizeof buf);
    if (n > 0) s.prefixer.feed(std::string_view(buf, static_cast<size_t>(n)));
    s.prefixer.flush();
    ::close(s.fd);
  }
  streams_.clear();
}

}  // namespace strata::cli
