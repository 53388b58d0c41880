// JSON objects with a key written twice. RFC 8259 leaves their meaning
// open and nlohmann::json keeps the last, so a TF_CONFIG with two "worker"
// lists (a merge mistake) would silently lose the first. Resolvers refuse
// such text instead, naming the key and where it stands.
#ifndef STRATA_CORE_CLUSTER_RESOLVERS_JSON_DUPLICATE_KEYS_H_
#define STRATA_CORE_CLUSTER_RESOLVERS_JSON_DUPLICATE_KEYS_H_

#include <optional>
#include <string>
#include <string_view>

namespace strata {

struct DuplicateJsonKey {
  std::string key;     // as decoded ("worker")
  std::string object;  // the object's path: "" at the top, "cluster", "jobs[2].x"
};

// The first key that appears twice in one object of `text`, or nullopt.
// Text that is not JSON gives nullopt too: the caller's parser reports it.
std::optional<DuplicateJsonKey> find_duplicate_json_key(std::string_view text);

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RESOLVERS_JSON_DUPLICATE_KEYS_H_
