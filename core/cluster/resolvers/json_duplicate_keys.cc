#include "core/cluster/resolvers/json_duplicate_keys.h"

#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace strata {
namespace {

using Json = nlohmann::json;

// A SAX pass that builds nothing: it keeps, for each open object or array,
// its path and the keys seen so far, and stops at the first repeat.
class DuplicateKeyFinder final : public nlohmann::json_sax<Json> {
 public:
  std::optional<DuplicateJsonKey> found;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& key) override {
    Level& level = stack_.back();
    if (!level.keys.insert(key).second) {
      found = DuplicateJsonKey{key, level.path};
      return false;  // stop: the first repeat is the one to report
    }
    level.key = key;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  struct Level {
    bool object = false;
    std::string path;
    std::set<std::string> keys;  // objects only
    std::string key;             // objects: the key of the value being read
    size_t next_index = 0;       // arrays: the index of the next element
  };

  // The path of the value that starts now.
  std::string child_path() {
    if (stack_.empty()) return "";
    Level& parent = stack_.back();
    if (!parent.object) return parent.path + "[" + std::to_string(parent.next_index++) + "]";
    return parent.path.empty() ? parent.key : parent.path + "." + parent.key;
  }
  bool value() {
    (void)child_path();  // an array element still takes its index
    return true;
  }
  bool open(bool object) {
    Level level;
    level.object = object;
    level.path = child_path();
    stack_.push_back(std::move(level));
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  std::vector<Level> stack_;
};

}  // namespace

std::optional<DuplicateJsonKey> find_duplicate_json_key(std::string_view text) {
  DuplicateKeyFinder finder;
  try {
    Json::sax_parse(text.begin(), text.end(), &finder);
  } catch (const Json::exception&) {
    return std::nullopt;  // not JSON: the caller's own parse says where
  }
  return finder.found;
}

}  // namespace strata
