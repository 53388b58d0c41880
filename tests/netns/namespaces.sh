# Sourced by the netns tests: skip/fail, the probe that turns a machine
# without network namespaces into a skip (exit 77, ctest's
# SKIP_RETURN_CODE, reason printed), and the cleanup that kills whatever
# runs in the namespaces made and deletes them, whatever happens.
# The test sets `tag` (unique per run) and `work` (its scratch folder)
# first; it adds each namespace it makes to `namespaces`.
#
#   netns_require [bridge]   root, iproute2, a namespace and a veth pair
#                            (and a bridge) can be made, else skip

skip() { echo "SKIP: $*"; rm -rf "$work"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

netns_require() {
  [[ $(id -u) -eq 0 ]] || skip "creating network namespaces needs root (ip netns)"
  command -v ip >/dev/null || skip "iproute2's ip command is not installed"
  # A kernel or container that forbids one of these is a reason to skip,
  # not a failure.
  local err probe_err=""
  if ! err=$(ip netns add "$tag-probe" 2>&1); then skip "cannot create a network namespace: $err"; fi
  if ! err=$(ip -n "$tag-probe" link add pa type veth peer name pb 2>&1); then
    probe_err="cannot create a veth pair: $err"
  elif [[ ${1:-} == bridge ]] && ! err=$(ip -n "$tag-probe" link add pbr type bridge 2>&1); then
    probe_err="cannot create a bridge: $err"
  fi
  ip netns del "$tag-probe"
  [[ -z $probe_err ]] || skip "$probe_err"
}

namespaces=()
netns_cleanup() {
  local ns pids
  for ns in "${namespaces[@]}"; do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [[ -n $pids ]] && kill -9 $pids 2>/dev/null
  done
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$work"
}
