#!/usr/bin/env bash
# Host composition across real hosts: 2 network namespaces joined by a veth
# pair, 2 processes in each, one job of 4 (TF_CONFIG). Core must see 2 hosts
# (the network namespace is part of the host key), compose every op by host
# (collectives.hierarchy: host): shm among the two processes of each host
# (store_exchange where the shm plugin is not built), grpc_ring between the
# host leaders over the veth.
# Every op's result is checked against the flat reference by
# host_levels_worker; `strata explain --join` must show both levels.
#
#   host_levels_test.sh BIN_DIR WORKER STORE_EXCHANGE_DIR
#
# Exits 77 (ctest's SKIP_RETURN_CODE) with the reason where namespaces
# cannot be made: not root, no iproute2, or a kernel/container that forbids
# them. Every wait is bounded; the namespaces go, whatever happens.
set -uo pipefail
bin=$1
worker=$2
exchange_dir=$3
tag="sh$$"
work=$(mktemp -d /tmp/strata_host_levels.XXXXXX)

source "$(dirname "$0")/namespaces.sh"
netns_require
trap netns_cleanup EXIT

# --- two hosts, 10.203.0.1 and 10.203.0.2, on the two ends of one veth pair.
host_ns() { echo "$tag-h$1"; }
host_ip() { echo "10.203.0.$(($1 + 1))"; }
for h in 0 1; do
  ip netns add "$(host_ns $h)" || fail "cannot create $(host_ns $h)"
  namespaces+=("$(host_ns $h)")
done
ip link add "${tag}a" type veth peer name "${tag}b" || fail "cannot create a veth pair"
ip link set "${tag}a" netns "$(host_ns 0)"
ip link set "${tag}b" netns "$(host_ns 1)"
for h in 0 1; do
  dev=$([[ $h == 0 ]] && echo "${tag}a" || echo "${tag}b")
  ip -n "$(host_ns $h)" addr add "$(host_ip $h)/24" dev "$dev"
  ip -n "$(host_ns $h)" link set "$dev" up
  ip -n "$(host_ns $h)" link set lo up
done

token_file="$work/job.token"
(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$token_file")
config="$work/host_levels.yaml"
cat > "$config" <<YAML
strata: 1
plugins:
  path: [$exchange_dir]
  disable: [mpi]
cluster:
  resolver: tf_config
  rendezvous_timeout: 30s
  heartbeat: 500ms
collectives:
  hierarchy: host
  timeout: 20s
YAML

# Ranks 0, 1 on host 0 and 2, 3 on host 1; each process its own port.
tf_config() {  # rank port
  local workers="\"$(host_ip 0):$2\",\"$(host_ip 0):$(($2 + 1))\""
  workers+=",\"$(host_ip 1):$2\",\"$(host_ip 1):$(($2 + 1))\""
  echo "{\"cluster\":{\"worker\":[$workers]},\"task\":{\"type\":\"worker\",\"index\":$1}}"
}
run_job() {  # name port command...: every rank in its host, bounded; fails on any failure
  local name=$1 port=$2 r status=0
  shift 2
  local pids=()
  for r in 0 1 2 3; do
    ip netns exec "$(host_ns $((r / 2)))" env TF_CONFIG="$(tf_config $r "$port")" \
      STRATA_JOB_TOKEN_FILE="$token_file" STRATA_CONFIG="$config" \
      timeout -k 5 60 "$@" > "$work/$name.$r.log" 2>&1 &
    pids+=($!)
  done
  for r in 0 1 2 3; do
    wait "${pids[$r]}" || { status=1; echo "rank $r of $name failed:"; tail -30 "$work/$name.$r.log"; }
  done
  return $status
}

# AUTO's choice inside a host: shm wherever it is built (it declines teams
# that span hosts, so it cannot serve the leaders).
if compgen -G "$bin/../lib/strata/plugins/libstrata_shm.so" > /dev/null; then
  intra_reduce=shm/reduce/sliced
else
  intra_reduce=store_exchange/reduce/exchange
fi

# --- 1. every op, checked against the flat reference, on every rank.
run_job ops 29700 "$worker" "$config" || fail "the composed ops failed"
for r in 0 1 2 3; do
  grep -q "^rank $r of 4 on host $((r / 2)) of 2$" "$work/ops.$r.log" ||
    { cat "$work/ops.$r.log"; fail "rank $r does not see itself on host $((r / 2)) of 2"; }
  ! grep -q FAILED "$work/ops.$r.log" || { cat "$work/ops.$r.log"; fail "rank $r: a result is wrong"; }
  checked=$(grep -c "^ok " "$work/ops.$r.log")
  ((checked >= 20)) || { cat "$work/ops.$r.log"; fail "rank $r checked only $checked results"; }
done
cat "$work/ops.0.log" | sed -n '/^all_reduce:/,$p'
grep -q "^all_reduce: composed by host" "$work/ops.0.log" || fail "all_reduce was not composed by host"
grep -q "^  intra-host reduce: $intra_reduce" "$work/ops.0.log" ||
  fail "the intra-host level does not reduce with $intra_reduce"
grep -q "^  inter-host all_reduce: grpc_ring/all_reduce/ring" "$work/ops.0.log" ||
  fail "the inter-host level does not all-reduce with grpc_ring"
echo "every op matched the flat reference on all 4 ranks ($checked results each)"

# --- 2. strata explain, joined to a job of the same shape, shows both levels.
run_job explain 29710 "$bin/strata" explain --join all_reduce 1MiB || fail "strata explain --join failed"
cat "$work/explain.0.log"
grep -q "on 2 host(s); this process: rank 0 on host 0 (ranks 0, 1)" "$work/explain.0.log" ||
  fail "explain does not show 2 hosts"
grep -q "rank 3 on host 1 (ranks 2, 3)" "$work/explain.3.log" || fail "rank 3's explain is wrong"
grep -q "^hierarchy: composed by host" "$work/explain.0.log" || fail "explain shows no host composition"
grep -Eq "^ +2 +inter-host +2 host leaders +all_reduce +grpc_ring/all_reduce/ring" "$work/explain.0.log" ||
  fail "explain does not show grpc_ring between the hosts"
grep -Eq "^ +1 +intra-host .* reduce +$intra_reduce" "$work/explain.0.log" ||
  fail "explain does not show the intra-host level"
for h in 0 1; do
  [[ -z $(ip netns pids "$(host_ns $h)") ]] || fail "processes left behind on host $h"
done
echo "PASS"
