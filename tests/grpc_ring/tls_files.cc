#include "tls_files.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

namespace strata::grpc_ring::testing {
namespace {

constexpr const char* kOpenssl = "/usr/bin/openssl";

// Runs one shell command; `timeout` bounds it, so a hung openssl (waiting
// on entropy, or a prompt) fails the helper instead of the test hanging.
bool run(const std::string& command, std::string* why) {
  const std::string bounded = "timeout 60 " + command + " >/dev/null 2>&1";
  const int rc = std::system(bounded.c_str());
  if (rc == 0) return true;
  *why = "'" + command + "' failed (status " + std::to_string(rc) + ")";
  return false;
}

// A CA and one peer certificate it signs, for both TLS sides.
bool make_pki(const std::string& dir, const std::string& name, TlsIdentity* out,
              std::string* why) {
  const std::string ca_key = dir + "/" + name + "-ca.key";
  const std::string ext = dir + "/" + name + ".ext";
  out->ca = dir + "/" + name + "-ca.pem";
  out->key = dir + "/" + name + "-peer.key";
  out->cert = dir + "/" + name + "-peer.pem";
  const std::string csr = dir + "/" + name + "-peer.csr";
  {
    std::ofstream e(ext);
    e << "subjectAltName=DNS:" << kPeerName << "\n"
      << "extendedKeyUsage=serverAuth,clientAuth\n";
    if (!e) {
      *why = "cannot write " + ext;
      return false;
    }
  }
  // EC keys: fast to make, and gRPC's BoringSSL/OpenSSL take them.
  const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  const std::string o(kOpenssl);
  return run(o + " req -x509" + ec + " -keyout " + ca_key + " -out " + out->ca +
                 " -days 2 -subj /CN=" + name + "-test-ca",
             why) &&
         run(o + " req -new" + ec + " -keyout " + out->key + " -out " + csr + " -subj /CN=" +
                 kPeerName,
             why) &&
         run(o + " x509 -req -in " + csr + " -CA " + out->ca + " -CAkey " + ca_key +
                 " -CAcreateserial -days 2 -extfile " + ext + " -out " + out->cert,
             why);
}

}  // namespace

std::optional<TlsFiles> TlsFiles::make(const std::string& parent, std::string* why) {
  if (::access(kOpenssl, X_OK) != 0) {
    *why = std::string(kOpenssl) + " is not installed; TLS tests need it to make certificates";
    return std::nullopt;
  }
  std::string templ = parent + "/strata_tls_XXXXXX";
  std::vector<char> path(templ.begin(), templ.end());
  path.push_back('\0');
  if (::mkdtemp(path.data()) == nullptr) {
    *why = "cannot create a directory under " + parent;
    return std::nullopt;
  }
  const std::string dir(path.data());
  TlsFiles files;
  files.dir_ = dir;
  if (!make_pki(dir, "job", &files.member_, why) ||
      !make_pki(dir, "other", &files.stranger_, why)) {
    return std::nullopt;
  }
  return files;
}

}  // namespace strata::grpc_ring::testing
