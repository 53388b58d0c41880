// The grpc data plane (data_plane: grpc, and the only one with TLS): ring
// messages ride the team's gRPC streams. Each send is copied into a gRPC
// slice and written by gRPC's threads (RingLink); the stream from the left
// queues arrivals in the Inbox, and the calling thread checks and applies
// them here.
#ifndef STRATA_PLUGINS_GRPC_RING_GRPC_DATA_PLANE_H_
#define STRATA_PLUGINS_GRPC_RING_GRPC_DATA_PLANE_H_

#include "data_plane.h"
#include "ring_inbox.h"
#include "ring_link.h"

namespace strata::grpc_ring {

class GrpcDataPlane final : public DataPlane {
 public:
  GrpcDataPlane(RingLink& link, Inbox& inbox, Signal& signal, int left)
      : link_(link), inbox_(inbox), signal_(signal), left_(left) {}

  void send(const Header& header, const std::byte* payload) override;
  uint64_t completed() const override { return link_.completed(); }
  void flush() override {}
  bool receive(const Header& want, const Delivery& delivery) override;
  void check_send() const override { link_.check(); }
  uint64_t mark() const override { return signal_.mark(); }
  void wait(uint64_t mark, std::chrono::steady_clock::time_point deadline, bool,
            bool) override {
    signal_.wait(mark, deadline);
  }

 private:
  RingLink& link_;
  Inbox& inbox_;
  Signal& signal_;
  int left_;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_GRPC_DATA_PLANE_H_
