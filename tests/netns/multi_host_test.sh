#!/usr/bin/env bash
# Several hosts on one machine: each "host" is a network namespace with its
# own address, joined to the others through veth pairs and a bridge in a
# switch namespace. Each gets its own TF_CONFIG and trains the digits demo
# with MultiWorkerMirrored over grpc_ring; all must finish with the same
# test loss. Then a longer run starts, the last host's link is cut, and the
# others must fail with an error naming that host within the timeout, with
# no process left behind.
#
#   multi_host_test.sh BIN_DIR SOURCE_DIR [HOSTS]
#
# Exits 77 (ctest's SKIP_RETURN_CODE) with the reason where namespaces
# cannot be made: not root, no iproute2, or a kernel/container that forbids
# them. Every wait is bounded.
set -uo pipefail
bin=$1
src=$2
hosts=${3:-3}
tag="st$$"
work=$(mktemp -d /tmp/strata_netns.XXXXXX)
config="$src/configs/multi_worker_grpc_ring.yaml"
switch="$tag-sw"

source "$(dirname "$0")/namespaces.sh"
netns_require bridge
trap netns_cleanup EXIT

host_ns() { echo "$tag-h$1"; }
host_ip() { echo "10.201.0.$(($1 + 1))"; }

# --- the network: a bridge in a switch namespace, one veth pair a host.
ip netns add "$switch" || fail "cannot create $switch"
namespaces+=("$switch")
ip -n "$switch" link add br0 type bridge
ip -n "$switch" link set br0 up
for ((i = 0; i < hosts; i++)); do
  ns=$(host_ns "$i")
  ip netns add "$ns" || fail "cannot create $ns"
  namespaces+=("$ns")
  ip link add "${tag}h${i}" type veth peer name "${tag}s${i}" || fail "cannot create a veth pair"
  ip link set "${tag}h${i}" netns "$ns"
  ip link set "${tag}s${i}" netns "$switch"
  ip -n "$ns" link set "${tag}h${i}" name eth0
  ip -n "$ns" addr add "$(host_ip "$i")/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  ip -n "$switch" link set "${tag}s${i}" master br0
  ip -n "$switch" link set "${tag}s${i}" up
done
echo "network: $hosts hosts, $(host_ip 0) .. $(host_ip $((hosts - 1))), bridged in $switch"

# One job token, in a private file: every connection of the job presents it.
token_file="$work/job.token"
(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$token_file")

tf_config() {  # TF_CONFIG of host $1 in a job whose port block starts at $2
  local workers="" i
  for ((i = 0; i < hosts; i++)); do
    workers+="${workers:+,}\"$(host_ip "$i"):$2\""
  done
  echo "{\"cluster\":{\"worker\":[$workers]},\"task\":{\"type\":\"worker\",\"index\":$1}}"
}

start_job() {  # name port epochs: starts every host's worker in the background
  local name=$1 port=$2 epochs=$3 i
  pids=()
  for ((i = 0; i < hosts; i++)); do
    ip netns exec "$(host_ns "$i")" env TF_CONFIG="$(tf_config "$i" "$port")" \
      STRATA_JOB_TOKEN_FILE="$token_file" STRATA_DEVICES_PER_WORKER=1 \
      timeout -k 5 240 "$bin/train_digits" --config "$config" --epochs "$epochs" \
      > "$work/$name.$i.log" 2>&1 &
    pids+=($!)
  done
}

# --- 1. train across the hosts.
start_job train 29500 3
status=0
for ((i = 0; i < hosts; i++)); do
  wait "${pids[$i]}" || { status=$?; echo "host $i exited with $status:"; tail -20 "$work/train.$i.log"; }
done
((status == 0)) || fail "training across $hosts hosts failed"
# Every worker prints the job's figures (metrics are read across the whole
# job), so every host's must be host 0's, and equal to what the same worker
# reports when the job runs on one machine under strata launch.
result() { sed -n 's/.*after .*\(test loss .*\)/\1/p' "$1" | tail -1; }
timeout -k 5 240 "$bin/strata" launch -n "$hosts" --quiet -- "$bin/train_digits" \
  --config "$config" --epochs 3 > "$work/local.log" 2>&1 || { cat "$work/local.log"; fail "the local run failed"; }
for ((i = 0; i < hosts; i++)); do
  grep "^\[worker-$i\]" "$work/local.log" > "$work/local.$i.log"
  here=$(result "$work/train.$i.log")
  there=$(result "$work/local.$i.log")
  echo "host $i: $here"
  [[ -n $here && $here == "$there" ]] || fail "host $i ended with '$here', the same worker on one machine with '$there'"
  ((i == 0)) && first=$here
  [[ $here == "$first" ]] || fail "host $i ended with '$here', host 0 with '$first'"
done

# --- 2. cut the last host's link in the middle of a long run.
victim=$((hosts - 1))
start_job cut 29600 500
for ((t = 0; t < 600; t++)); do  # up to 60 s for training to be under way
  grep -q "epoch" "$work/cut.0.log" 2>/dev/null && break
  sleep 0.1
done
grep -q "epoch" "$work/cut.0.log" || { cat "$work/cut.0.log"; fail "the long run never started"; }
ip -n "$switch" link set "${tag}s${victim}" down
cut_at=$(date +%s)
echo "cut host $victim ($(host_ip "$victim")) from the switch"
for ((i = 0; i < victim; i++)); do
  wait "${pids[$i]}"
  code=$?
  took=$(($(date +%s) - cut_at))
  ((code != 0)) || fail "host $i finished training although host $victim was cut off"
  ((code != 124 && code != 137)) || fail "host $i hung until killed (exit $code)"
  grep -E "worker $victim|rank $victim|$(host_ip "$victim")" "$work/cut.$i.log" | tail -2 ||
    { tail -20 "$work/cut.$i.log"; fail "host $i's error does not name host $victim"; }
  echo "host $i failed after ${took}s (exit $code), naming host $victim"
  ((took <= 60)) || fail "host $i took ${took}s to notice; the config's timeouts allow 60"
done
kill -9 "${pids[$victim]}" 2>/dev/null
wait "${pids[$victim]}" 2>/dev/null
for ((i = 0; i < victim; i++)); do
  [[ -z $(ip netns pids "$(host_ns "$i")") ]] || fail "processes left behind on host $i"
done
echo "PASS"
