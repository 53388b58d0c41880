// YamlReader: one node of a config file, with where it stood and the dotted
// key path that led to it ("collectives.rules[0].use"). Every shape or value
// problem becomes an INVALID_ARGUMENT that an operator can act on without
// opening the source: "x.yaml:12:7: collectives.timeout: expected a duration
// like 300s, got 'abc'".
//
// Sections and lists written with nothing after the colon (`rules:`) read as
// empty: an operator commenting out every entry should not get an error.
// Scalars never do: a missing value is an error, never a silent default.
//
// After load(), only Type(), Scalar(), Mark() and iteration of yaml-cpp are
// used, none of its throwing conversions; config.cc still catches exceptions
// around the whole parse as a backstop.
#ifndef STRATA_CORE_CONFIG_YAML_READER_H_
#define STRATA_CORE_CONFIG_YAML_READER_H_

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/common/status.h"
#include "core/config/config.h"

namespace strata {

class YamlReader {
 public:
  // Parses `text`, which must hold one YAML document. Syntax errors carry
  // yaml-cpp's message at the 1-based line and column: "x.yaml:3:1: end of
  // sequence flow not found".
  static StatusOr<YamlReader> load(std::string_view text, std::string file);

  // The document root of `file`.
  YamlReader(YAML::Node node, std::string file);

  const SourceMark& mark() const { return mark_; }
  const std::string& path() const { return path_; }  // empty at the root
  bool is_null() const { return node_.IsNull(); }

  // INVALID_ARGUMENT "<file:line:col>: <path>: <message>".
  Status error(std::string_view message) const;
  // error("expected <what>, got <what was written>"), plus `detail` (e.g.
  // why a unit was refused) where it helps.
  Status expected(std::string_view what, std::string_view detail = {}) const;

  // A map (null counts as empty) whose keys are unique scalars from
  // `allowed`. Unknown keys are reported at the key, with the allowed list.
  Status require_map(std::initializer_list<std::string_view> allowed) const;
  // A map whose keys are unique scalars, any names (plugin options).
  Status require_map() const;

  // The value under `key`, or nullopt when absent. Call require_map first.
  std::optional<YamlReader> find(std::string_view key) const;
  // Every (key, value) pair in file order; the key reader's path is the
  // value's, so a bad key is reported as "plugins.options.Bad: ...".
  std::vector<std::pair<YamlReader, YamlReader>> entries() const;
  // The elements of a list (null counts as empty), paths "<path>[i]".
  StatusOr<std::vector<YamlReader>> items() const;

  // This node's value. Errors name the expectation and what was written.
  StatusOr<std::string> as_string() const;  // any scalar, as written
  StatusOr<int64_t> as_int(int64_t min, int64_t max) const;
  StatusOr<bool> as_bool() const;
  StatusOr<uint64_t> as_size() const;                     // units.h
  StatusOr<std::chrono::nanoseconds> as_duration() const;  // units.h
  StatusOr<std::vector<std::string>> as_string_list() const;

  // The value under `key` into *out; *out keeps its default when the key is
  // absent. These are what section parsers mostly call.
  Status get_string(std::string_view key, std::string* out) const;
  Status get_int(std::string_view key, int64_t min, int64_t max, int64_t* out) const;
  Status get_bool(std::string_view key, bool* out) const;
  Status get_size(std::string_view key, uint64_t* out) const;
  Status get_duration(std::string_view key, std::chrono::nanoseconds* out) const;
  Status get_string_list(std::string_view key, std::vector<std::string>* out) const;

 private:
  YamlReader(YAML::Node node, SourceMark mark, std::string path);
  // A child whose value mark falls back to `key_mark` when yaml-cpp has
  // none to give or points past the key (an empty value).
  YamlReader child(const YAML::Node& value, const SourceMark& key_mark,
                   std::string path) const;
  SourceMark mark_of(const YAML::Node& node, const SourceMark& fallback) const;
  Status check_keys(const std::initializer_list<std::string_view>* allowed) const;
  // "'abc'", "nothing", "a list", "a map": what the operator wrote.
  std::string describe() const;

  YAML::Node node_;
  SourceMark mark_;
  std::string path_;
};

}  // namespace strata

#endif  // STRATA_CORE_CONFIG_YAML_READER_H_
