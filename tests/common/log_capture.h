// Copies what core's logger prints while it lives, one "<level> <text>"
// string per line ("warning plugin x refused (...): ..."), for tests that
// check a warning was (or was not) given. The logger's other sinks keep
// their old threshold, so a test's own output stays as quiet as before.
// Safe while other threads log (the call watchdog, a plugin's threads).
#ifndef STRATA_TESTS_COMMON_LOG_CAPTURE_H_
#define STRATA_TESTS_COMMON_LOG_CAPTURE_H_

#include <spdlog/common.h>
#include <spdlog/details/log_msg.h>
#include <spdlog/sinks/base_sink.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/logging.h"

namespace strata::testing {

class LogCapture {
 public:
  // Captures lines at `level` and above.
  explicit LogCapture(spdlog::level::level_enum level = spdlog::level::info)
      : sink_(std::make_shared<Sink>()), saved_level_(logger().level()) {
    sink_->set_pattern("%l %v");
    sink_->set_level(level);
    for (auto& s : logger().sinks()) {
      saved_sink_levels_.push_back(s->level());
      s->set_level(std::max(s->level(), saved_level_));
    }
    logger().sinks().push_back(sink_);
    logger().set_level(std::min(level, saved_level_));
  }
  ~LogCapture() {
    auto& sinks = logger().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
    for (size_t i = 0; i < sinks.size() && i < saved_sink_levels_.size(); ++i) {
      sinks[i]->set_level(saved_sink_levels_[i]);
    }
    logger().set_level(saved_level_);
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::vector<std::string> lines() const { return sink_->lines(); }
  // The lines that contain `needle`.
  std::vector<std::string> lines_with(std::string_view needle) const {
    std::vector<std::string> out = lines();
    std::erase_if(out, [&](const std::string& l) { return l.find(needle) == std::string::npos; });
    return out;
  }
  // Every line, each ended by '\n'.
  std::string text() const {
    std::string out;
    for (const std::string& line : lines()) out += line + "\n";
    return out;
  }

 private:
  // Keeps the formatted lines under the sink's own mutex, which spdlog
  // holds while it writes, so reading them never races with a writer.
  class Sink final : public spdlog::sinks::base_sink<std::mutex> {
   public:
    std::vector<std::string> lines() {
      std::lock_guard lock(mutex_);
      return lines_;
    }

   protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
      spdlog::memory_buf_t formatted;
      formatter_->format(msg, formatted);
      std::string_view text(formatted.data(), formatted.size());
      while (!text.empty()) {
        const size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines_.emplace_back(line);
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
      }
    }
    void flush_() override {}

   private:
    std::vector<std::string> lines_;
  };

  std::shared_ptr<Sink> sink_;
  spdlog::level::level_enum saved_level_;
  std::vector<spdlog::level::level_enum> saved_sink_levels_;
};

}  // namespace strata::testing

#endif  // STRATA_TESTS_COMMON_LOG_CAPTURE_H_
