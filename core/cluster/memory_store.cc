#include "core/cluster/memory_store.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

#include "core/cluster/store_counter.h"
#include "core/common/clock.h"
#include "strata/sdk/error.h"

namespace strata {
namespace {

struct Space {
  std::mutex mu;
  std::condition_variable changed;
  std::map<std::string, std::string, std::less<>> values;
};

// Spaces live as long as the process; addresses name them.
std::shared_ptr<Space> space_for(std::string_view address) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<Space>, std::less<>> spaces;
  std::lock_guard lock(mu);
  auto it = spaces.find(address);
  if (it == spaces.end()) {
    it = spaces.emplace(std::string(address), std::make_shared<Space>()).first;
  }
  return it->second;
}

class MemoryStore final : public sdk::Store {
 public:
  explicit MemoryStore(std::shared_ptr<Space> space) : space_(std::move(space)) {}

  void set(std::string_view key, std::string_view value) override {
    std::lock_guard lock(space_->mu);
    space_->values[std::string(key)] = std::string(value);
    space_->changed.notify_all();
  }

  std::string get(std::string_view key, int64_t deadline_ns) override {
    std::unique_lock lock(space_->mu);
    const bool found = space_->changed.wait_until(lock, from_ns(deadline_ns), [&] {
      return space_->values.count(key) != 0;
    });
    if (!found) {
      throw sdk::Error(STRATA_TIMED_OUT,
                       "key '" + std::string(key) + "' was not set before the deadline");
    }
    return space_->values.find(key)->second;
  }

  int64_t add(std::string_view key, int64_t delta) override {
    std::lock_guard lock(space_->mu);
    std::string& slot = space_->values[std::string(key)];
    auto sum = add_to_counter(key, slot, delta);
    if (!sum.ok()) throw sdk::InvalidArgument(sum.status().message());
    const int64_t value = *sum;
    slot = std::to_string(value);
    space_->changed.notify_all();
    return value;
  }

 private:
  std::shared_ptr<Space> space_;
};

class MemoryStoreType final : public sdk::StoreType {
 public:
  MemoryStoreType()
      : StoreType("memory", "in-process key/value space; address names the space") {}
  std::unique_ptr<sdk::Store> open(std::string_view address, int, int,
                                   int64_t) override {
    return std::make_unique<MemoryStore>(space_for(address));
  }
};

}  // namespace

std::unique_ptr<sdk::StoreType> make_memory_store_type() {
  return std::make_unique<MemoryStoreType>();
}

}  // namespace strata
