#include "core/train/fit_position.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string_view>

namespace strata {
namespace {

constexpr std::string_view kUnset = "unset";

// A decimal number of at most `max`, digits only: from_chars alone would
// accept a prefix ("12abc") and a leading '-' for signed types.
template <class T>
std::optional<T> parse_decimal(std::string_view text, T max) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  T value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > max) return std::nullopt;
  return value;
}

}  // namespace

void store_fit_position(const FitPosition& position,
                        std::map<std::string, std::string>& metadata) {
  metadata[kFitEpochKey] = std::to_string(position.epoch);
  metadata[kFitStepsInEpochKey] = std::to_string(position.steps_in_epoch);
  metadata[kFitBatchesInEpochKey] = std::to_string(position.batches_in_epoch);
  std::string state = position.data_state ? "" : std::string(kUnset);
  for (uint64_t counter : position.data_state.value_or(std::vector<uint64_t>{})) {
    if (!state.empty()) state += ',';
    state += std::to_string(counter);
  }
  metadata[kFitDataStateKey] = state;
}

StatusOr<std::optional<FitPosition>> load_fit_position(
    const std::map<std::string, std::string>& metadata, const std::string& where) {
  const char* keys[] = {kFitEpochKey, kFitStepsInEpochKey, kFitBatchesInEpochKey,
                        kFitDataStateKey};
  int present = 0;
  for (const char* key : keys) present += metadata.count(key) > 0 ? 1 : 0;
  if (present == 0) return std::optional<FitPosition>();
  for (const char* key : keys) {
    if (metadata.count(key) == 0) {
      return DataLossError(where + ": metadata '" + key + "' is missing beside the other fit/ "
                           "entries; the checkpoint was not written whole by Model::fit");
    }
  }
  auto bad = [&](const char* key, const std::string& why) {
    std::string value = metadata.at(key).substr(0, 40);
    for (char& c : value) {
      if (c < ' ' || c > '~') c = '?';
    }
    return DataLossError(where + ": metadata '" + key + "' = '" + value + "' " + why);
  };
  constexpr auto kMax = std::numeric_limits<int64_t>::max();
  FitPosition position;
  int64_t* fields[] = {&position.epoch, &position.steps_in_epoch, &position.batches_in_epoch};
  for (int i = 0; i < 3; ++i) {
    const std::optional<int64_t> value = parse_decimal<int64_t>(metadata.at(keys[i]), kMax);
    if (!value) return bad(keys[i], "is not a count from 0 to " + std::to_string(kMax));
    *fields[i] = *value;
  }
  if (position.batches_in_epoch < position.steps_in_epoch) {
    return bad(kFitBatchesInEpochKey, "is fewer than the " +
                                          std::to_string(position.steps_in_epoch) +
                                          " steps of the epoch; every step reads a batch");
  }
  const std::string_view state = metadata.at(kFitDataStateKey);
  if (state == kUnset) return std::optional<FitPosition>(std::move(position));
  position.data_state.emplace();
  for (size_t begin = 0; !state.empty() && begin <= state.size();) {
    const size_t comma = std::min(state.find(',', begin), state.size());
    const std::optional<uint64_t> counter = parse_decimal<uint64_t>(
        state.substr(begin, comma - begin), std::numeric_limits<uint64_t>::max());
    if (!counter) return bad(kFitDataStateKey, "is not a comma-separated list of counters");
    position.data_state->push_back(*counter);
    begin = comma + 1;
  }
  return std::optional<FitPosition>(std::move(position));
}

}  // namespace strata
