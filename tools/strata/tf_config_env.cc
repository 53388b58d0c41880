#include "tools/strata/tf_config_env.h"

#include <sys/random.h>

#include <cerrno>

#include <nlohmann/json.hpp>

#include "strata/sdk/free_port.h"

extern char** environ;

namespace strata::cli {
namespace {

std::string name_of(const std::string& entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

StatusOr<std::vector<int>> pick_loopback_ports(int count) {
  // Held until every port is picked, so that they differ from one another.
  std::vector<sdk::PortReservation> held;
  std::vector<int> ports;
  for (int i = 0; i < count; ++i) {
    std::string error;
    held.push_back(sdk::PortReservation::make(sdk::PortReservation::Scope::kLoopback, error));
    if (!held.back().valid()) {
      return UnavailableError("cannot find a free loopback port for task " + std::to_string(i) +
                              ": " + error);
    }
    ports.push_back(held.back().port());
  }
  return ports;
}

std::string tf_config_text(const std::vector<int>& ports, int index) {
  return tf_config_text(ports, {}, "worker", index);
}

std::string tf_config_text(const std::vector<int>& worker_ports, const std::vector<int>& ps_ports,
                           const std::string& type, int index) {
  auto job = [](const std::vector<int>& ports) {
    nlohmann::json tasks = nlohmann::json::array();
    for (int port : ports) tasks.push_back("127.0.0.1:" + std::to_string(port));
    return tasks;
  };
  nlohmann::json cluster = {{"worker", job(worker_ports)}};
  if (!ps_ports.empty()) cluster["ps"] = job(ps_ports);
  const nlohmann::json config = {{"cluster", cluster},
                                 {"task", {{"type", type}, {"index", index}}}};
  return config.dump();
}

StatusOr<std::string> new_job_token() {
  unsigned char bytes[16];
  size_t have = 0;
  // getrandom on 16 bytes returns them all at once unless a signal lands
  // first; the loop is bounded by the attempts, not by luck.
  for (int attempt = 0; attempt < 8 && have < sizeof bytes; ++attempt) {
    const ssize_t n = ::getrandom(bytes + have, sizeof bytes - have, 0);
    if (n < 0 && errno != EINTR) {
      return UnavailableError("cannot draw a random job token (getrandom): " + errno_text(errno));
    }
    if (n > 0) have += static_cast<size_t>(n);
  }
  if (have < sizeof bytes)
    return UnavailableError("getrandom returned too few bytes for a job token");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 0xf];
  }
  return token;
}

WorkerEnvironment::WorkerEnvironment() {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) inherited_.emplace_back(*e);
}

void WorkerEnvironment::set(const std::string& name, const std::string& value) {
  overrides_[name] = value;
}

std::vector<std::string> WorkerEnvironment::block(
    const std::map<std::string, std::string>& per_worker) const {
  std::vector<std::string> out;
  for (const std::string& entry : inherited_) {
    const std::string name = name_of(entry);
    if (overrides_.count(name) == 0 && per_worker.count(name) == 0) out.push_back(entry);
  }
  for (const auto& [name, value] : overrides_) {
    if (per_worker.count(name) == 0) out.push_back(name + "=" + value);
  }
  for (const auto& [name, value] : per_worker) out.push_back(name + "=" + value);
  return out;
}

}  // namespace strata::cli
