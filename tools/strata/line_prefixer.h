// Turns the byte stream of one worker's stdout or stderr into whole lines,
// each starting with a prefix such as "[worker-1] ", written with one
// write() per line so lines from different workers never mix.
#ifndef STRATA_TOOLS_STRATA_LINE_PREFIXER_H_
#define STRATA_TOOLS_STRATA_LINE_PREFIXER_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace strata::cli {

class LinePrefixer {
 public:
  // A line longer than this without a newline is written out as if it
  // ended there, so a worker printing megabytes with no '\n' (a progress
  // bar with '\r', binary junk) cannot grow the launcher without bound.
  static constexpr size_t kMaxLineBytes = 64 * 1024;

  // `out_fd` is not owned: the launcher's 1 or 2.
  LinePrefixer(std::string prefix, int out_fd);
  LinePrefixer(const LinePrefixer&) = delete;
  LinePrefixer& operator=(const LinePrefixer&) = delete;
  LinePrefixer(LinePrefixer&&) = default;
  LinePrefixer& operator=(LinePrefixer&&) = default;

  // Buffers `bytes` and writes every line it completes.
  void feed(std::string_view bytes);

  // Writes a pending partial line, with a newline added so the next
  // output starts on a line of its own. For the end of the stream.
  void flush();

  // Bytes held for an unfinished line.
  size_t pending() const { return partial_.size(); }

 private:
  void emit(std::string_view line);  // `line` without its '\n'

  std::string prefix_;
  int out_fd_;
  std::string partial_;
  std::string scratch_;  // reused for prefix + line + '\n'
};

// Writes all of `bytes` to `fd`, retrying short writes and EINTR. Returns
// false when the reader is gone (EPIPE) or another error stops it; the
// launcher keeps running its workers even if nobody reads their output.
bool write_fully(int fd, std::string_view bytes);

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_LINE_PREFIXER_H_
