#include "core/data/digits.h"

#include <zlib.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string_view>
#include <system_error>
#include <vector>

namespace strata {
namespace {

constexpr int64_t kPixels = 64;
constexpr int kMaxPixel = 16;
constexpr int kClasses = 10;

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// The whole decompressed file. gzread alone would accept a plain file
// (zlib reads non-gzip input "transparently") and stop quietly at a
// truncated stream, so both are checked: either would otherwise surface as
// a confusing parse error on some line.
StatusOr<std::string> read_gzip(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return NotFoundError("digits data file '" + path + "' does not exist");
  }
  GzFile file(gzopen(path.c_str(), "rb"));
  if (!file) {
    return NotFoundError("cannot open digits data file '" + path +
                         "': " + std::generic_category().message(errno));
  }
  if (gzdirect(file.get()) == 1) {
    return DataLossError("'" + path + "' is not gzip-compressed (expected a .csv.gz file)");
  }
  std::string text;
  std::vector<char> chunk(1 << 16);
  while (true) {
    const int n = gzread(file.get(), chunk.data(), static_cast<unsigned>(chunk.size()));
    if (n < 0) break;  // the error is read below
    text.append(chunk.data(), static_cast<size_t>(n));
    if (n == 0) break;
  }
  int code = Z_OK;
  const char* message = gzerror(file.get(), &code);
  if (code != Z_OK && code != Z_STREAM_END) {
    const std::string what = code == Z_BUF_ERROR ? "truncated gzip data" : "corrupt gzip data";
    // zlib's message starts with the path again; keep only its reason.
    std::string_view reason = message;
    if (reason.starts_with(path + ": ")) reason.remove_prefix(path.size() + 2);
    return DataLossError("'" + path + "': " + what + " (" + std::string(reason) + ")");
  }
  return text;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// One line: 64 pixels then the label, appended to the outputs.
Status parse_line(std::string_view line, const std::string& where, std::vector<float>& features,
                  std::vector<float>& labels) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (static_cast<int64_t>(fields.size()) != kPixels + 1) {
    return InvalidArgumentError(where + ": expected " + std::to_string(kPixels + 1) +
                                " comma-separated fields (64 pixels, then the label), found " +
                                std::to_string(fields.size()));
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string_view field = fields[i];
    int value = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (ec != std::errc() || end != field.data() + field.size() || field.empty()) {
      return InvalidArgumentError(where + ": field " + std::to_string(i + 1) + " '" +
                                  std::string(field) + "' is not an integer");
    }
    const bool is_label = static_cast<int64_t>(i) == kPixels;
    const int max = is_label ? kClasses - 1 : kMaxPixel;
    if (value < 0 || value > max) {
      return InvalidArgumentError(where + ": " + (is_label ? "label" : "pixel") + " (field " +
                                  std::to_string(i + 1) + ") is " + std::to_string(value) +
                                  ", outside 0.." + std::to_string(max));
    }
    if (is_label) {
      labels.push_back(static_cast<float>(value));
    } else {
      features.push_back(static_cast<float>(value) / static_cast<float>(kMaxPixel));
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<DigitsData> load_digits_csv_gz(const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(const std::string text, read_gzip(path));
  std::vector<float> features;
  std::vector<float> labels;
  std::string_view rest = text;
  int64_t line_number = 0;
  while (!rest.empty()) {
    const size_t newline = rest.find('\n');
    const std::string_view line = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
    ++line_number;
    if (trim(line).empty()) continue;  // a trailing newline, or blank lines
    STRATA_RETURN_IF_ERROR(
        parse_line(line, path + ":" + std::to_string(line_number), features, labels));
  }
  if (labels.empty()) return InvalidArgumentError("'" + path + "' holds no examples");
  const int64_t n = static_cast<int64_t>(labels.size());
  return DigitsData{Tensor({n, kPixels}, std::move(features)), Tensor({n}, std::move(labels))};
}

StatusOr<std::string> find_digits_file(const std::string& source_root) {
  std::error_code ec;
  const char* env = std::getenv("STRATA_DIGITS");
  if (env != nullptr && *env != '\0') {
    if (std::filesystem::exists(env, ec)) return std::string(env);
    return NotFoundError("STRATA_DIGITS names '" + std::string(env) +
                         "', which does not exist; unset it to use the copy in the source tree");
  }
  const std::filesystem::path path =
      std::filesystem::path(source_root) / "examples" / "data" / "digits.csv.gz";
  if (std::filesystem::exists(path, ec)) return path.string();
  return NotFoundError("digits data not found at '" + path.string() +
                       "'; set STRATA_DIGITS to the path of digits.csv.gz");
}

}  // namespace strata
