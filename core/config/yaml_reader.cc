#include "core/config/yaml_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <sstream>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include "core/common/units.h"

namespace strata {
namespace {

Status error_at(const SourceMark& mark, std::string_view message) {
  return InvalidArgumentError(mark.to_string() + ": " + std::string(message));
}

std::string join(std::initializer_list<std::string_view> names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// units.h explains a bad unit or a missing one well, but for text that is
// not a number at all ("abc") it would only repeat what we already say.
bool looks_numeric(std::string_view text) {
  return !text.empty() &&
         (std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.');
}

// The keyed getters share one shape: an absent key keeps the default.
template <class T, class Read>
Status get_into(const YamlReader& reader, std::string_view key, T* out, Read read) {
  std::optional<YamlReader> value = reader.find(key);
  if (!value) return Status::Ok();
  auto got = read(*value);
  if (!got.ok()) return got.status();
  *out = std::move(got).value();
  return Status::Ok();
}

// Where each document of a stream starts; the rest of the events are
// YAML::Load's business.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;

  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// yaml-cpp counts lines and columns from 0; editors and compilers from 1.
SourceMark to_source_mark(const YAML::Mark& m, const std::string& file) {
  if (m.is_null()) return SourceMark{file, 0, 0};
  return SourceMark{file, m.line + 1, m.column + 1};
}

}  // namespace

StatusOr<YamlReader> YamlReader::load(std::string_view text, std::string file) {
  try {
    // Not YAML::LoadAll: on input such as a lone ',' yaml-cpp 0.7 returns an
    // empty document without consuming the token, so LoadAll never returns
    // and eats memory (jbeder/yaml-cpp#1040, fixed upstream by #1319).
    // Two document starts tell everything we need, and an unmoved start
    // tells us the parser is stuck.
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    DocumentStarts docs;
    while (docs.starts.size() < 2 && parser.HandleNextDocument(docs)) continue;
    if (docs.starts.size() == 2 && docs.starts[0].pos == docs.starts[1].pos) {
      const auto pos = static_cast<size_t>(docs.starts[0].pos);
      const std::string token = pos < text.size() ? std::string(1, text[pos]) : "end of file";
      return error_at(to_source_mark(docs.starts[0], file),
                      "unexpected '" + token + "' where a YAML value should start");
    }
    if (docs.starts.size() == 2) {
      return error_at(to_source_mark(docs.starts[1], file),
                      "a config file holds one YAML document; a second one starts here");
    }
    return YamlReader(YAML::Load(in.str()), std::move(file));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this is "bad file".
    return error_at(to_source_mark(e.mark, file),
                    "nested more than " + std::to_string(e.depth()) + " levels deep");
  } catch (const YAML::Exception& e) {
    return error_at(to_source_mark(e.mark, file), e.msg);
  } catch (const std::exception& e) {
    return InternalError(file + ": unexpected error while parsing YAML: " + e.what());
  }
}

YamlReader::YamlReader(YAML::Node node, std::string file)
    : node_(std::move(node)) {
  mark_ = mark_of(node_, SourceMark{std::move(file), 0, 0});
}

YamlReader::YamlReader(YAML::Node node, SourceMark mark, std::string path)
    : node_(std::move(node)), mark_(std::move(mark)), path_(std::move(path)) {}

SourceMark YamlReader::mark_of(const YAML::Node& node, const SourceMark& fallback) const {
  const YAML::Mark m = node.Mark();
  return m.is_null() ? fallback : to_source_mark(m, fallback.file);
}

YamlReader YamlReader::child(const YAML::Node& value, const SourceMark& key_mark,
                             std::string path) const {
  // yaml-cpp marks an empty value at the next token, often the next line.
  SourceMark mark = value.IsNull() ? key_mark : mark_of(value, key_mark);
  return YamlReader(value, std::move(mark), std::move(path));
}

Status YamlReader::error(std::string_view message) const {
  if (path_.empty()) return error_at(mark_, message);
  return error_at(mark_, path_ + ": " + std::string(message));
}

std::string YamlReader::describe() const {
  switch (node_.Type()) {
    case YAML::NodeType::Scalar: return "'" + node_.Scalar() + "'";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: break;
  }
  return "nothing";
}

Status YamlReader::expected(std::string_view what, std::string_view detail) const {
  std::string message = "expected " + std::string(what) + ", got " + describe();
  if (!detail.empty()) message += ": " + std::string(detail);
  return error(message);
}

Status YamlReader::require_map(std::initializer_list<std::string_view> allowed) const {
  return check_keys(&allowed);
}

Status YamlReader::require_map() const { return check_keys(nullptr); }

Status YamlReader::check_keys(const std::initializer_list<std::string_view>* allowed) const {
  if (node_.IsNull()) return Status::Ok();
  if (!node_.IsMap()) {
    return expected(allowed == nullptr ? "a map" : "a map with keys " + join(*allowed));
  }
  const std::string where = path_.empty() ? "at the top level" : "in " + path_;
  std::map<std::string, int> first_line;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const SourceMark key_mark = mark_of(it->first, mark_);
    if (!it->first.IsScalar()) {
      return error_at(key_mark, "keys " + where + " must be plain names, not a list or map");
    }
    const std::string& key = it->first.Scalar();
    if (allowed != nullptr &&
        std::find(allowed->begin(), allowed->end(), key) == allowed->end()) {
      return error_at(key_mark, "unknown key '" + key + "' " + where +
                                    "; expected one of: " + join(*allowed));
    }
    // yaml-cpp keeps both copies of a repeated key; which one would win is
    // not something an operator should have to know.
    auto [seen, inserted] = first_line.emplace(key, key_mark.line);
    if (!inserted) {
      return error_at(key_mark, "duplicate key '" + key + "' " + where +
                                    "; it is already set on line " +
                                    std::to_string(seen->second));
    }
  }
  return Status::Ok();
}

std::optional<YamlReader> YamlReader::find(std::string_view key) const {
  if (!node_.IsMap()) return std::nullopt;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      const std::string path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
      return child(it->second, mark_of(it->first, mark_), path);
    }
  }
  return std::nullopt;
}

std::vector<std::pair<YamlReader, YamlReader>> YamlReader::entries() const {
  std::vector<std::pair<YamlReader, YamlReader>> out;
  if (!node_.IsMap()) return out;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
    const std::string path = path_.empty() ? key : path_ + "." + key;
    const SourceMark key_mark = mark_of(it->first, mark_);
    out.emplace_back(YamlReader(it->first, key_mark, path), child(it->second, key_mark, path));
  }
  return out;
}

StatusOr<std::vector<YamlReader>> YamlReader::items() const {
  std::vector<YamlReader> out;
  if (node_.IsNull()) return out;
  if (!node_.IsSequence()) return expected("a list like [a, b]");
  size_t i = 0;
  for (auto it = node_.begin(); it != node_.end(); ++it, ++i) {
    // An empty item ("-" alone) is marked at the next token, which may be
    // another section; the list's own mark plus the index is truer.
    SourceMark mark = it->IsNull() ? mark_ : mark_of(*it, mark_);
    out.push_back(YamlReader(*it, std::move(mark), path_ + "[" + std::to_string(i) + "]"));
  }
  return out;
}

StatusOr<std::string> YamlReader::as_string() const {
  if (!node_.IsScalar()) return expected("a string");
  return node_.Scalar();
}

StatusOr<int64_t> YamlReader::as_int(int64_t min, int64_t max) const {
  const std::string what =
      "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  if (!node_.IsScalar()) return expected(what);
  const std::string& text = node_.Scalar();
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < min || value > max) {
    return expected(what);
  }
  return value;
}

StatusOr<bool> YamlReader::as_bool() const {
  // YAML 1.2's spellings only: "yes", "on" and "y" are 1.1 surprises (the
  // Norway problem), so they are refused rather than guessed at.
  if (node_.IsScalar()) {
    const std::string& t = node_.Scalar();
    if (t == "true" || t == "True" || t == "TRUE") return true;
    if (t == "false" || t == "False" || t == "FALSE") return false;
  }
  return expected("true or false");
}

StatusOr<uint64_t> YamlReader::as_size() const {
  constexpr std::string_view kWhat = "a size like 32MiB";
  if (!node_.IsScalar()) return expected(kWhat);
  auto size = parse_size(node_.Scalar());
  if (!size.ok()) {
    return expected(kWhat, looks_numeric(node_.Scalar()) ? size.status().message() : "");
  }
  return *size;
}

StatusOr<std::chrono::nanoseconds> YamlReader::as_duration() const {
  constexpr std::string_view kWhat = "a duration like 300s";
  if (!node_.IsScalar()) return expected(kWhat);
  auto duration = parse_duration(node_.Scalar());
  if (!duration.ok()) {
    return expected(kWhat, looks_numeric(node_.Scalar()) ? duration.status().message() : "");
  }
  return *duration;
}

StatusOr<std::vector<std::string>> YamlReader::as_string_list() const {
  STRATA_ASSIGN_OR_RETURN(std::vector<YamlReader> elements, items());
  std::vector<std::string> out;
  for (const YamlReader& e : elements) {
    STRATA_ASSIGN_OR_RETURN(std::string s, e.as_string());
    out.push_back(std::move(s));
  }
  return out;
}

Status YamlReader::get_string(std::string_view key, std::string* out) const {
  return get_into(*this, key, out, [](const YamlReader& v) { return v.as_string(); });
}
Status YamlReader::get_int(std::string_view key, int64_t min, int64_t max, int64_t* out) const {
  return get_into(*this, key, out, [&](const YamlReader& v) { return v.as_int(min, max); });
}
Status YamlReader::get_bool(std::string_view key, bool* out) const {
  return get_into(*this, key, out, [](const YamlReader& v) { return v.as_bool(); });
}
Status YamlReader::get_size(std::string_view key, uint64_t* out) const {
  return get_into(*this, key, out, [](const YamlReader& v) { return v.as_size(); });
}
Status YamlReader::get_duration(std::string_view key, std::chrono::nanoseconds* out) const {
  return get_into(*this, key, out, [](const YamlReader& v) { return v.as_duration(); });
}
Status YamlReader::get_string_list(std::string_view key, std::vector<std::string>* out) const {
  return get_into(*this, key, out, [](const YamlReader& v) { return v.as_string_list(); });
}

}  // namespace strata
