#include "core/cluster/resolvers/environment.h"

#include <charconv>
#include <cstdlib>

namespace strata {
namespace {

class ProcessEnvironment final : public Environment {
 public:
  std::optional<std::string> get(std::string_view name) const override {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  }
};

}  // namespace

std::optional<std::string> Environment::find(std::string_view name) const {
  std::optional<std::string> value = get(name);
  if (!value) return std::nullopt;
  constexpr std::string_view kSpace = " \t\r\n";
  const size_t first = value->find_first_not_of(kSpace);
  if (first == std::string::npos) return std::nullopt;
  const size_t last = value->find_last_not_of(kSpace);
  return value->substr(first, last - first + 1);
}

std::shared_ptr<const Environment> process_environment() {
  static const auto env = std::make_shared<const ProcessEnvironment>();
  return env;
}

StatusOr<int> parse_int_variable(std::string_view name, std::string_view text, int min, int max) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return InvalidArgumentError(std::string(name) + "='" + std::string(text) +
                                "' is not an integer from " + std::to_string(min) + " to " +
                                std::to_string(max));
  }
  return value;
}

}  // namespace strata
