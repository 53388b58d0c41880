#include "core/config/parameter_server_config.h"

#include <array>
#include <cmath>
#include <cstdlib>

#include "core/config/yaml_reader.h"

namespace strata {
namespace {

constexpr std::array<std::string_view, 8> kSchemes = {
    "hogwild", "downpour", "agn", "sagn", "sync", "dynamic_sgd", "aeasgd", "aeamsgd"};

constexpr std::array<std::string_view, 12> kKeys = {
    "scheme",          "learning_rate",     "worker_learning_rates", "communication_period",
    "moving_rate",     "momentum",          "local_optimizer",       "variable_placement",
    "split_bytes",     "worker_timeout",    "request_timeout",       "startup_timeout"};

// yaml-cpp's own conversion throws; this one reports the key and the text.
StatusOr<float> as_float(const YamlReader& r, double min, double max, bool min_inclusive) {
  STRATA_ASSIGN_OR_RETURN(std::string text, r.as_string());
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) {
    return r.expected("a number", "");
  }
  const bool low_ok = min_inclusive ? v >= min : v > min;
  if (!low_ok || v > max) {
    return r.error("expected a number in " + std::string(min_inclusive ? "[" : "(") +
                   std::to_string(min) + ", " + std::to_string(max) + "], got " + text);
  }
  return static_cast<float>(v);
}

Status get_float(const YamlReader& r, std::string_view key, double min, double max,
                 bool min_inclusive, float* out) {
  if (auto v = r.find(key)) {
    STRATA_ASSIGN_OR_RETURN(*out, as_float(*v, min, max, min_inclusive));
  }
  return Status::Ok();
}

StatusOr<std::string> one_of(const YamlReader& r, std::initializer_list<std::string_view> names) {
  STRATA_ASSIGN_OR_RETURN(std::string text, r.as_string());
  std::string list;
  for (std::string_view n : names) {
    if (n == text) return text;
    list += (list.empty() ? "" : ", ") + std::string(n);
  }
  return r.error("expected one of: " + list + "; got '" + text + "'");
}

Status positive(const YamlReader& r, std::string_view key, std::chrono::nanoseconds d) {
  if (d <= std::chrono::nanoseconds::zero()) {
    return r.find(key)->error("must be a positive duration");
  }
  return Status::Ok();
}

}  // namespace

bool is_parameter_server_scheme(std::string_view name) {
  for (std::string_view s : kSchemes) {
    if (s == name) return true;
  }
  return false;
}

Status parse_parameter_server_keys(const YamlReader& r, std::string_view kind,
                                   ParameterServerConfig* out) {
  if (kind != "parameter_server") {
    for (std::string_view key : kKeys) {
      if (auto v = r.find(key)) {
        return v->error("applies only to strategy kind parameter_server, not " +
                        std::string(kind));
      }
    }
    return Status::Ok();
  }
  if (auto s = r.find("scheme")) {
    STRATA_ASSIGN_OR_RETURN(std::string scheme, s->as_string());
    if (!is_parameter_server_scheme(scheme)) {
      return s->error("unknown scheme '" + scheme + "'; expected one of: " +
                      std::string(kParameterServerSchemes));
    }
    out->scheme = std::move(scheme);
  }
  STRATA_RETURN_IF_ERROR(get_float(r, "learning_rate", 0.0, 100.0, false, &out->learning_rate));
  if (auto rates = r.find("worker_learning_rates")) {
    STRATA_ASSIGN_OR_RETURN(std::vector<YamlReader> items, rates->items());
    out->worker_learning_rates.clear();
    for (const YamlReader& item : items) {
      STRATA_ASSIGN_OR_RETURN(float rate, as_float(item, 0.0, 100.0, false));
      out->worker_learning_rates.push_back(rate);
    }
  }
  int64_t period = out->communication_period;
  STRATA_RETURN_IF_ERROR(r.get_int("communication_period", 1, 1 << 20, &period));
  out->communication_period = static_cast<int>(period);
  STRATA_RETURN_IF_ERROR(get_float(r, "moving_rate", 0.0, 1.0, false, &out->moving_rate));
  STRATA_RETURN_IF_ERROR(get_float(r, "momentum", 0.0, 0.9999, true, &out->momentum));
  if (auto o = r.find("local_optimizer")) {
    STRATA_ASSIGN_OR_RETURN(out->local_optimizer, one_of(*o, {"sgd", "adagrad"}));
  }
  if (auto p = r.find("variable_placement")) {
    STRATA_ASSIGN_OR_RETURN(out->variable_placement, one_of(*p, {"round_robin", "by_size"}));
  }
  STRATA_RETURN_IF_ERROR(r.get_size("split_bytes", &out->split_bytes));
  if (r.find("split_bytes") && out->split_bytes < 4) {
    return r.find("split_bytes")->error("must be at least 4B (one float)");
  }
  STRATA_RETURN_IF_ERROR(r.get_duration("worker_timeout", &out->worker_timeout));
  STRATA_RETURN_IF_ERROR(r.get_duration("request_timeout", &out->request_timeout));
  STRATA_RETURN_IF_ERROR(r.get_duration("startup_timeout", &out->startup_timeout));
  for (std::string_view key : {"worker_timeout", "request_timeout", "startup_timeout"}) {
    if (r.find(key)) {
      std::chrono::nanoseconds d = key == "worker_timeout"    ? out->worker_timeout
                                   : key == "request_timeout" ? out->request_timeout
                                                              : out->startup_timeout;
      STRATA_RETURN_IF_ERROR(positive(r, key, d));
    }
  }
  return Status::Ok();
}

}  // namespace strata
