#include "fake_host.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::grpc_ring::testing {

FakeHost::FakeHost() {
  services_.struct_size = sizeof services_;
  services_.host = this;
  services_.log = &FakeHost::log;
  services_.now_ns = &FakeHost::now;
  services_.option = &FakeHost::option;
  services_.store_set = &FakeHost::set;
  services_.store_get = &FakeHost::get;
  sdk::Host::set_fallback(&services_);
}

FakeHost::~FakeHost() { sdk::Host::set_fallback(nullptr); }

std::vector<std::string> FakeHost::warnings() const {
  std::lock_guard lock(mu_);
  return warnings_;
}

void FakeHost::clear_log() {
  std::lock_guard lock(mu_);
  warnings_.clear();
}

void FakeHost::log(void* host, strata_log_level_t level, const char* message) {
  auto* self = static_cast<FakeHost*>(host);
  std::cerr << "[log " << level << "] " << message << "\n";
  if (level < STRATA_LOG_WARNING) return;
  std::lock_guard lock(self->mu_);
  self->warnings_.emplace_back(message);
}

int64_t FakeHost::now(void*) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void FakeHost::set_option(const std::string& key, const std::string& value) {
  std::lock_guard lock(mu_);
  options_[key] = value;
}

void FakeHost::share_through(const std::string& dir) {
  std::lock_guard lock(mu_);
  shared_dir_ = dir;
}

namespace {

std::string shared_path(const std::string& dir, std::string key) {
  for (char& c : key) {
    if (c == '/') c = '_';
  }
  return dir + "/" + key;
}

}  // namespace

const char* FakeHost::option(void* host, const char* key) {
  auto* self = static_cast<FakeHost*>(host);
  std::lock_guard lock(self->mu_);
  auto it = self->options_.find(key);
  return it == self->options_.end() ? nullptr : it->second.c_str();
}

strata_status_t FakeHost::set(void* store, const char* key, const void* value, uint64_t length,
                              strata_message_t) {
  auto* self = static_cast<FakeHost*>(store);
  {
    std::lock_guard lock(self->mu_);
    self->values_[key] = std::string(static_cast<const char*>(value), length);
    if (!self->shared_dir_.empty()) {  // atomically: a reader never sees half a value
      const std::string path = shared_path(self->shared_dir_, key);
      std::ofstream(path + ".tmp", std::ios::binary)
          .write(static_cast<const char*>(value), static_cast<std::streamsize>(length));
      std::rename((path + ".tmp").c_str(), path.c_str());
    }
  }
  self->cv_.notify_all();
  return STRATA_OK;
}

strata_status_t FakeHost::get(void* store, const char* key, void* buf, uint64_t capacity,
                              uint64_t* length, int64_t deadline_ns, strata_message_t msg) {
  auto* self = static_cast<FakeHost*>(store);
  std::unique_lock lock(self->mu_);
  const auto until = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(deadline_ns));
  auto present = [&] {
    if (self->values_.count(key) != 0) return true;
    if (self->shared_dir_.empty()) return false;
    std::ifstream in(shared_path(self->shared_dir_, key), std::ios::binary);
    if (!in) return false;
    std::ostringstream text;
    text << in.rdbuf();
    self->values_[key] = text.str();
    return true;
  };
  // Another process's set wakes nobody here: look again every few ms.
  while (!present() && std::chrono::steady_clock::now() < until) {
    self->cv_.wait_until(lock, std::min(until, std::chrono::steady_clock::now() +
                                                   std::chrono::milliseconds(5)));
  }
  if (!present()) {
    sdk::write_message(msg, std::string("key ") + key + " did not appear by the deadline");
    return STRATA_TIMED_OUT;
  }
  const std::string& v = self->values_[key];
  *length = v.size();
  if (v.size() > capacity) return STRATA_INVALID_ARGUMENT;
  std::memcpy(buf, v.data(), v.size());
  return STRATA_OK;
}

}  // namespace strata::grpc_ring::testing
