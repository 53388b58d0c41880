#include "tpu_sim_options.h"

#include <charconv>
#include <cstdlib>
#include <optional>
#include <vector>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/option_values.h"

namespace strata::tpu_sim {
namespace {

const std::string kPrefix = "plugins.options.tpu_sim.";
// A pod slice bigger than this is not what an in-process simulation is for:
// every core is a thread.
constexpr int kMaxCores = 256;

int whole_number(const std::string& where, const std::string& text, int low, int high) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high) {
    throw sdk::InvalidArgument(where + ": '" + text + "' is not a whole number from " +
                               std::to_string(low) + " to " + std::to_string(high));
  }
  return value;
}

bool boolean(const std::string& where, const std::string& text) {
  if (text == "true" || text == "1" || text == "yes") return true;
  if (text == "false" || text == "0" || text == "no") return false;
  throw sdk::InvalidArgument(where + ": '" + text + "' is not true or false");
}

}  // namespace

void parse_topology(const std::string& where, const std::string& text, int* rows, int* cols) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t x = text.find('x', start);
    parts.push_back(text.substr(start, x == std::string::npos ? x : x - start));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  const bool flat_third = parts.size() == 3 && parts[2] == "1";
  if (parts.size() != 2 && !flat_third) {
    throw sdk::InvalidArgument(where + ": '" + text +
                               "' is not a 2-D topology ROWSxCOLS such as 2x2 or 2x4 "
                               "(a third dimension may only be 1)");
  }
  const int r = whole_number(where + " (rows)", parts[0], 1, kMaxCores);
  const int c = whole_number(where + " (cols)", parts[1], 1, kMaxCores);
  if (r * c > kMaxCores) {
    throw sdk::InvalidArgument(where + ": '" + text + "' has " + std::to_string(r * c) +
                               " cores; the simulation runs at most " +
                               std::to_string(kMaxCores) + " (one thread each)");
  }
  *rows = r;
  *cols = c;
}

TpuSimOptions TpuSimOptions::from_host() {
  TpuSimOptions o;
  if (auto v = sdk::Host::option("rows")) o.rows = whole_number(kPrefix + "rows", *v, 1, kMaxCores);
  if (auto v = sdk::Host::option("cols")) o.cols = whole_number(kPrefix + "cols", *v, 1, kMaxCores);
  if (o.cores() > kMaxCores) {
    throw sdk::InvalidArgument(kPrefix + "rows x cols: " + o.topology() + " is more than " +
                               std::to_string(kMaxCores) + " cores");
  }
  const char* forced = std::getenv("STRATA_TPU_SIM_TOPOLOGY");
  if (forced != nullptr && *forced != '\0') {
    parse_topology("STRATA_TPU_SIM_TOPOLOGY", forced, &o.rows, &o.cols);
  }
  if (auto v = sdk::Host::option("memory_per_core")) {
    o.memory_per_core =
        static_cast<uint64_t>(sdk::parse_option_number(kPrefix + "memory_per_core", *v, true));
  }
  // alpha_us and reduce_gbytes_per_s are the SDK's shared cost-model names;
  // a torus has links, so the wire bandwidth is link_gbytes_per_s.
  const bool wire = sdk::Host::option("wire_gbytes_per_s").has_value();
  sdk::read_cost_model_options(kPrefix, &o.alpha, &o.beta, &o.gamma);
  if (auto v = sdk::Host::option("link_gbytes_per_s")) {
    if (wire) {
      throw sdk::InvalidArgument(kPrefix + "link_gbytes_per_s and " + kPrefix +
                                 "wire_gbytes_per_s both set; give link_gbytes_per_s only");
    }
    o.beta = 1.0 / (sdk::parse_option_number(kPrefix + "link_gbytes_per_s", *v, false) * 1e9);
  }
  if (auto v = sdk::Host::option("pace_links")) o.pace_links = boolean(kPrefix + "pace_links", *v);
  if (auto v = sdk::Host::option("stream_wait_timeout_s")) {
    const double s = sdk::parse_option_number(kPrefix + "stream_wait_timeout_s", *v, false);
    o.stream_wait_timeout = std::chrono::nanoseconds(static_cast<int64_t>(s * 1e9));
  }
  return o;
}

}  // namespace strata::tpu_sim
