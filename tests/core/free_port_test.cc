// PortReservation: ports held at once differ, lie outside the kernel's
// ephemeral range, and are free for their task to listen on once released.
#include "strata/sdk/free_port.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace strata::sdk {
namespace {

// What a task does with its port: bind it and listen. True on success.
bool listen_on_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = fd >= 0 &&
                  ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
                  ::listen(fd, 1) == 0;
  if (fd >= 0) ::close(fd);
  return ok;
}

// Ports outside the range on this host; where an operator widened the
// range to (nearly) every port, the reservation falls back to port 0.
int room_outside(const PortRange& r) {
  return std::max(0, r.low - 1024) + std::max(0, 65535 - std::max(r.high + 1, 1024) + 1);
}

bool outside(int port, const PortRange& r) { return port < r.low || port > r.high; }

TEST(PortReservation, HeldPortsDifferAndAvoidTheEphemeralRange) {
  const PortRange ephemeral = ephemeral_port_range();
  const bool room = room_outside(ephemeral) >= 1000;
  std::vector<PortReservation> held;
  std::set<int> ports;
  for (int i = 0; i < 16; ++i) {
    std::string error;
    held.push_back(PortReservation::make(PortReservation::Scope::kLoopback, error));
    ASSERT_TRUE(held.back().valid()) << error;
    const int port = held.back().port();
    if (room) {
      EXPECT_TRUE(outside(port, ephemeral))
          << port << " is in the ephemeral range " << ephemeral.low << "-" << ephemeral.high;
      EXPECT_GE(port, 1024);
    }
    ports.insert(port);
  }
  EXPECT_EQ(ports.size(), held.size());
}

TEST(PortReservation, AHeldPortIsTakenAndAReleasedOneIsFree) {
  std::string error;
  PortReservation reserved = PortReservation::make(PortReservation::Scope::kLoopback, error);
  ASSERT_TRUE(reserved.valid()) << error;
  const int port = reserved.port();
  EXPECT_FALSE(listen_on_loopback(port)) << "a reserved port must stay bound";
  reserved = PortReservation();
  EXPECT_FALSE(reserved.valid());
  EXPECT_TRUE(listen_on_loopback(port)) << "port " << port << " after release";
}

TEST(PortReservation, AnyAddressScopeHoldsThePortOnLoopbackToo) {
  const PortRange ephemeral = ephemeral_port_range();
  std::string error;
  const PortReservation reserved =
      PortReservation::make(PortReservation::Scope::kAnyAddress, error);
  ASSERT_TRUE(reserved.valid()) << error;
  if (room_outside(ephemeral) >= 1000) {
    EXPECT_TRUE(outside(reserved.port(), ephemeral));
  }
  EXPECT_FALSE(listen_on_loopback(reserved.port())) << "held on every address";
}

TEST(PortForDraw, CoversBothSidesOfTheRangeAndNothingElse) {
  const PortRange r{32768, 60999};
  const uint32_t below = 32768 - 1024;  // draws 0 .. below - 1 land under the range
  EXPECT_EQ(port_for_draw(0, r), 1024);
  EXPECT_EQ(port_for_draw(below - 1, r), 32767);
  EXPECT_EQ(port_for_draw(below, r), 61000);
  EXPECT_EQ(port_for_draw(below + (65535 - 61000), r), 65535);
  EXPECT_EQ(port_for_draw(below + (65535 - 61000) + 1, r), 1024);  // wraps around
  EXPECT_EQ(port_for_draw(7, PortRange{1024, 60999}), 61007);       // nothing below
  EXPECT_EQ(port_for_draw(7, PortRange{32768, 65535}), 1031);       // nothing above
  EXPECT_EQ(port_for_draw(7, PortRange{1024, 65535}), 0);           // no room: port 0
  EXPECT_EQ(port_for_draw(7, PortRange{500, 900}), 1031);           // never privileged
}

}  // namespace
}  // namespace strata::sdk
