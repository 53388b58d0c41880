#!/usr/bin/env bash
# Installs what Strata needs on Debian 12 (bookworm). Idempotent; run as
# root or with sudo available. Everything comes from Debian's archive.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libboost-dev                # Boost.DLL (header-only) for the plugin loader
  libyaml-cpp-dev             # configs
  libspdlog-dev libfmt-dev    # logging
  libcli11-dev                # command-line parsing
  nlohmann-json3-dev          # JSON output of benchmarks
  libgtest-dev libgmock-dev   # tests
  libelf-dev                  # strata-conformance reads a plugin's exports (rule 1)
  libbenchmark-dev            # micro-benchmarks
  zlib1g-dev                  # reading the .csv.gz example data
  libopenmpi-dev openmpi-bin  # the mpi plugin, mpirun, ompi-server
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
                              # the grpc_ring plugin
  libgloo-dev                 # the reference strata-ring-bench compares with
  python3-dev pybind11-dev python3-numpy python3-pytest
                              # the strata Python package and its tests (python/)
  python3-torch libtorch-dev  # strata.torch, the torch.distributed backend "strata"
  python3-matplotlib          # the plots of python3 -m strata.torch.bench
  iproute2                    # ip netns: the network-namespace hosts of tests/netns
  clang-16 libclang-rt-16-dev # libFuzzer for the parsers' fuzz targets (scripts/fuzz.sh);
                              # 16, not Debian's default 14: std::source_location
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "bootstrap: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "bootstrap: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
