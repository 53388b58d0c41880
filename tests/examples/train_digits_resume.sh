#!/usr/bin/env bash
# What a user of train_digits --model-dir sees when a run is killed and
# started again, and when the checkpoint directory cannot be resumed from.
# Usage: train_digits_resume.sh TRAIN_DIGITS SOURCE_DIR CASE
#   kill_resume   killed after step 60 (checkpoint 50, mid epoch 3), rerun:
#                 69 steps in all and the uninterrupted run's test figures
#   all_damaged   every checkpoint damaged: exit 1 naming them; with
#                 --fresh-start-if-damaged, a run from step 0
#   fifo          a FIFO in place of the checkpoint: an error, not a hang
#   ps_model_dir  --model-dir under parameter_server: refused
set -uo pipefail
bin=$1 src=$2 case=$3
config="$src/configs/mirrored_cpu.yaml"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Each run is bounded: a hang is a failure (exit 124), not a stuck CI job.
run() { timeout 120 "$bin" --config "$config" --epochs 3 "$@"; }
# "after 69 steps (1234 steps/s): test loss ..." without the timing.
figures() { grep '^after ' | sed 's/ ([0-9.e+-]* steps\/s)//'; }

case $case in
kill_resume)
  run --model-dir "$tmp/a" >"$tmp/a.out" 2>&1 || { cat "$tmp/a.out"; fail "uninterrupted run"; }
  run --model-dir "$tmp/b" --kill-after-step 60 >"$tmp/b1.out" 2>&1
  rc=$?
  [ "$rc" = 137 ] || { cat "$tmp/b1.out"; fail "the killed run exited $rc, not 137 (SIGKILL)"; }
  [ -f "$tmp/b/ckpt-50.strata" ] || fail "no checkpoint of step 50 before the kill"
  run --model-dir "$tmp/b" >"$tmp/b2.out" 2>&1 || { cat "$tmp/b2.out"; fail "resumed run"; }
  cat "$tmp/b2.out"
  grep -q "(resumed from $tmp/b at step 50)" "$tmp/b2.out" || fail "no resume line"
  expected=$(figures <"$tmp/a.out")
  got=$(figures <"$tmp/b2.out")
  echo "uninterrupted: $expected"
  echo "resumed:       $got"
  [[ $expected == "after 69 steps"* ]] || fail "the uninterrupted run did not take 69 steps"
  [ "$got" = "$expected" ] || fail "the resumed run ends elsewhere than the uninterrupted one"
  ;;
all_damaged)
  mkdir "$tmp/d"
  printf 'STRATACK but cut short' >"$tmp/d/ckpt-50.strata"
  printf 'not a checkpoint at all' >"$tmp/d/ckpt-100.strata"
  run --model-dir "$tmp/d" >"$tmp/d.out" 2>&1
  rc=$?
  cat "$tmp/d.out"
  [ "$rc" = 1 ] || fail "exit $rc with every checkpoint damaged, expected 1"
  grep -q "ckpt-50.strata" "$tmp/d.out" && grep -q "ckpt-100.strata" "$tmp/d.out" ||
    fail "the error does not name every damaged file"
  grep -q "after " "$tmp/d.out" && fail "it trained anyway"
  run --model-dir "$tmp/d" --fresh-start-if-damaged >"$tmp/d2.out" 2>&1 ||
    { cat "$tmp/d2.out"; fail "--fresh-start-if-damaged did not start afresh"; }
  grep -q "^after 69 steps" "$tmp/d2.out" || fail "the fresh start did not train 69 steps"
  ;;
fifo)
  mkdir "$tmp/f"
  mkfifo "$tmp/f/ckpt-50.strata"
  # The index names it, as after a save whose file was then replaced.
  printf 'latest ckpt-50.strata\nkept ckpt-50.strata\n' >"$tmp/f/checkpoint"
  timeout 30 "$bin" --config "$config" --epochs 3 --model-dir "$tmp/f" >"$tmp/f.out" 2>&1
  rc=$?
  cat "$tmp/f.out"
  [ "$rc" = 124 ] && fail "train_digits hung on the FIFO"
  [ "$rc" = 1 ] || fail "exit $rc with a FIFO as the only checkpoint, expected 1"
  grep -q "FIFO" "$tmp/f.out" || fail "the error does not say FIFO"
  ;;
ps_model_dir)
  config="$src/configs/parameter_server_cpu.yaml"
  run --model-dir "$tmp/p" >"$tmp/p.out" 2>&1
  rc=$?
  cat "$tmp/p.out"
  [ "$rc" = 1 ] || fail "exit $rc for --model-dir under parameter_server, expected 1"
  grep -q "not supported under parameter_server" "$tmp/p.out" || fail "no reason given"
  ;;
*) fail "unknown case $case" ;;
esac
echo "PASS: $case"
