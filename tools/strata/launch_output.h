// The launcher's side of its children's pipes: one poll() over all of them
// (and the signalfd), each stream turned into prefixed whole lines.
#ifndef STRATA_TOOLS_STRATA_LAUNCH_OUTPUT_H_
#define STRATA_TOOLS_STRATA_LAUNCH_OUTPUT_H_

#include <string>
#include <vector>

#include "tools/strata/line_prefixer.h"

namespace strata::cli {

// Writes "strata launch: LINE" to stderr in one write(), so the launcher's
// own messages never land inside a worker's line.
void launch_message(const std::string& line);

class OutputForwarder {
 public:
  OutputForwarder() = default;
  OutputForwarder(const OutputForwarder&) = delete;
  OutputForwarder& operator=(const OutputForwarder&) = delete;
  ~OutputForwarder() { close_all(); }

  // Takes `fd` (a non-blocking pipe read end): its lines go to `out_fd`
  // with `prefix` in front, until end of file.
  void add(int fd, std::string prefix, int out_fd);

  // Streams not yet at end of file.
  bool empty() const { return streams_.empty(); }

  // Waits up to `timeout_ms` for output on any stream or for `wake_fd` to
  // become readable, forwards what arrived (one read per stream, so a
  // chatty child cannot starve the others), and closes streams at end of
  // file, writing out their last partial line. True when `wake_fd` is
  // readable; the caller reads it.
  bool pump(int wake_fd, int timeout_ms);

  // Writes every partial line and closes every stream: the end of a launch,
  // whether or not the writers are done.
  void close_all();

 private:
  struct Stream {
    int fd;
    LinePrefixer prefixer;
  };
  std::vector<Stream> streams_;
};

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_LAUNCH_OUTPUT_H_
