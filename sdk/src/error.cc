#include "strata/sdk/error.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace strata::sdk {

void write_message(strata_message_t msg, std::string_view text) noexcept {
  if (msg.data == nullptr || msg.capacity == 0) return;
  const size_t n = std::min(text.size(), msg.capacity - 1);
  std::memcpy(msg.data, text.data(), n);
  msg.data[n] = '\0';
}

void check(strata_status_t status, std::string_view what, const char* message) {
  if (status >= 0) return;
  std::string text(what);
  if (message != nullptr && message[0] != '\0') {
    text += ": ";
    text += message;
  }
  throw Error(status, std::move(text));
}

}  // namespace strata::sdk
