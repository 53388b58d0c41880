// PortReservation: ports held at once differ, lie outside the kernel's
// ephemeral range, and are free for their task to listen on once released.
#include "strata/sdk/free_port.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

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

TEST(PortReservation, HeldPortsDifferAndAvoidTheEphemeralRange) {
  const PortRange ephemeral = ephemeral_port_range();
  std::vector<PortReservation> held;
  std::set<int> ports;
  for (int i = 0; i < 16; ++i) {
    std::string error;
    held.push_back(PortReservation::make(PortReservation::Scope::kLoopback, error));
    ASSERT_TRUE(held.back().valid()) << error;
    const int port = held.back().port();
    EXPECT_TRUE(port < ephemeral.low || port > ephemeral.high)
        << port << " is in the ephemeral range " << ephemeral.low << "-" << ephemeral.high;
    EXPECT_GE(port, 1024);
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

TEST(PortReservation, AnyAddressScopeReservesToo) {
  std::string error;
  const PortReservation reserved = PortReservation::make(PortReservation::Scope::kAnyAddress, error);
  ASSERT_TRUE(reserved.valid()) << error;
  EXPECT_GT(reserved.port(), 0);
}

}  // namespace
}  // namespace strata::sdk
