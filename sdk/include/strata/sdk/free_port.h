// A TCP port for a task to listen on later: what `strata launch` writes into
// each task's TF_CONFIG and what the mpi resolver gives rank 0's store.
//
// Ports that bind(port 0) hands out come from the kernel's ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range), the same range every outgoing
// connect() on the machine draws its local port from. Once the picker lets
// such a port go, any connection can take it before the task binds it, and
// the task fails with "Address already in use" (seen under a parallel ctest).
// So the port is drawn at random from outside that range, and bind(port 0)
// is only the fallback when nothing outside is free.
//
// Used by core's tools and by plugins alike, so it reports errors as text
// instead of throwing, like job_token.h.
#ifndef STRATA_SDK_FREE_PORT_H_
#define STRATA_SDK_FREE_PORT_H_

#include <cstdint>
#include <string>

namespace strata::sdk {

// The port stays bound (not listening) while this object lives, so ports
// reserved one after another differ; the task binds it once it is released.
// Another process binding that port on purpose in between still can: the
// window every launcher that hands out addresses has.
class PortReservation {
 public:
  enum class Scope { kLoopback, kAnyAddress };

  // A reservation on 127.0.0.1 or on every address; invalid, with `error`
  // saying why, when no socket could be bound.
  static PortReservation make(Scope scope, std::string& error);

  PortReservation() = default;
  PortReservation(PortReservation&& other) noexcept;
  PortReservation& operator=(PortReservation&& other) noexcept;
  PortReservation(const PortReservation&) = delete;
  PortReservation& operator=(const PortReservation&) = delete;
  ~PortReservation();

  bool valid() const { return fd_ >= 0; }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// The kernel's ephemeral range, [low, high]; Linux's default 32768-60999
// where /proc cannot be read.
struct PortRange {
  int low = 32768;
  int high = 60999;
};
PortRange ephemeral_port_range();

// The port that a random `draw` selects among the unprivileged ports
// outside `ephemeral` (1024 up to low - 1, then from high + 1 up to 65535);
// 0 when there are none. Exposed so its edges can be tested.
int port_for_draw(uint32_t draw, const PortRange& ephemeral);

}  // namespace strata::sdk

#endif  // STRATA_SDK_FREE_PORT_H_
