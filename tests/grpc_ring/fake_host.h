// Host services without core, for tests that drive the grpc_ring
// implementation directly: a clock, an in-memory team store, options the
// test sets, and a log that keeps every line so tests can count the
// warnings a stranger caused.
#ifndef STRATA_TESTS_GRPC_RING_FAKE_HOST_H_
#define STRATA_TESTS_GRPC_RING_FAKE_HOST_H_

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "strata/abi/registrar.h"

namespace strata::grpc_ring::testing {

class FakeHost {
 public:
  FakeHost();  // installs itself as the SDK's fallback services
  ~FakeHost();

  // The store every team of the test shares (keys carry the team id).
  void* store() { return this; }
  std::vector<std::string> warnings() const;
  void clear_log();
  // What option(key) answers from now on (set before the plugin reads it).
  void set_option(const std::string& key, const std::string& value);
  // Makes the store span processes: every set also lands as a file in
  // `dir`, and a get looks there too (tests that fork ranks).
  void share_through(const std::string& dir);

 private:
  static void log(void* host, strata_log_level_t level, const char* message);
  static int64_t now(void* host);
  static const char* option(void* host, const char* key);
  static strata_status_t set(void* store, const char* key, const void* value, uint64_t length,
                             strata_message_t msg);
  static strata_status_t get(void* store, const char* key, void* buf, uint64_t capacity,
                             uint64_t* length, int64_t deadline_ns, strata_message_t msg);

  strata_host_services_t services_{};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::string> options_;
  std::vector<std::string> warnings_;
  std::string shared_dir_;
};

}  // namespace strata::grpc_ring::testing

#endif  // STRATA_TESTS_GRPC_RING_FAKE_HOST_H_
