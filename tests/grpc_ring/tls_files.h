// Throwaway PKI for TLS tests, made by the openssl command line at test
// time: a CA, a peer certificate it signs (every rank uses the same one as
// server and client, names DNS:strata-peer only, so the ring must be told
// tls_server_name), and a second CA with its own peer certificate, which
// the first CA does not trust.
#ifndef STRATA_TESTS_GRPC_RING_TLS_FILES_H_
#define STRATA_TESTS_GRPC_RING_TLS_FILES_H_

#include <optional>
#include <string>

namespace strata::grpc_ring::testing {

inline constexpr const char* kPeerName = "strata-peer";

struct TlsIdentity {
  std::string cert, key, ca;  // PEM file paths
};

class TlsFiles {
 public:
  // Writes everything under a fresh directory in `parent`. nullopt with
  // *why when openssl is missing or fails (the test then skips, saying why).
  static std::optional<TlsFiles> make(const std::string& parent, std::string* why);

  // A member of the job: signed by the job's CA, trusting it.
  const TlsIdentity& member() const { return member_; }
  // A stranger: signed by another CA, trusting only that one.
  const TlsIdentity& stranger() const { return stranger_; }
  // Where the files are; the test removes it when done.
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  TlsIdentity member_, stranger_;
};

}  // namespace strata::grpc_ring::testing

#endif  // STRATA_TESTS_GRPC_RING_TLS_FILES_H_
