#!/usr/bin/env bash
# fuzz/run.sh TARGET SECONDS — fuzzes one target for SECONDS with one worker (see README.md).
#
# Builds the target with cargo-fuzz on the stable toolchain (--sanitizer none, debug
# assertions on, so integer overflows panic), seeds fuzz/corpus/TARGET when it is empty, runs
# libFuzzer and prints one line:
#   fuzz TARGET: N executions in S s (R exec/s), C corpus inputs, 0 crashes
# On a crash (panic, abort, timeout, out of memory) it prints libFuzzer's report and the
# input (kept in fuzz/artifacts/TARGET/) and exits 1.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: fuzz/run.sh TARGET SECONDS}
seconds=${2:?usage: fuzz/run.sh TARGET SECONDS}
SHARED="${SHARED:-$(cd .. && cd .. && pwd)/shared}"
# The fuzz crate is its own workspace with its own target dir (instrumented builds).
unset CARGO_TARGET_DIR
export CARGO_TERM_COLOR=never

# FUZZ_SANITIZER=address: AddressSanitizer (memory errors in the unsafe kernels). It needs
# -Zsanitizer, which the stable compiler accepts only with RUSTC_BOOTSTRAP=1; slower, so not
# what CI runs. It builds into its own target dir.
sanitizer="${FUZZ_SANITIZER:-none}"
target_dir=target
if [ "$sanitizer" != none ]; then
  export RUSTC_BOOTSTRAP=1
  target_dir="target/$sanitizer"
fi

command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
cargo fuzz build --sanitizer "$sanitizer" --debug-assertions --target-dir "$target_dir" "$target" \
  > "/tmp/webnn-fuzz-build-$target.log" 2>&1 || {
  tail -40 "/tmp/webnn-fuzz-build-$target.log"; echo "fuzz $target: build failed"; exit 1; }
bin="$target_dir/x86_64-unknown-linux-gnu/release/$target"

corpus="corpus/$target"
mkdir -p "$corpus" "artifacts/$target"
if [ -z "$(ls -A "$corpus")" ]; then
  case "$target" in
    builder_ops) WEBNN_FUZZ_WRITE_SEEDS="$SHARED/wpt:$corpus" "$bin" ;;
    onnx_import) python3 seeds.py onnx_import "$corpus" "$SHARED/models" ;;
    *) python3 seeds.py "$target" "$corpus" ;;
  esac || echo "seeding $target failed: fuzzing from an empty corpus"
fi
dict=()
[ -f "corpus/$target.dict" ] && dict=(-dict="corpus/$target.dict")

log="/tmp/webnn-fuzz-$target.log"
status=0
WEBNN_NUM_THREADS=1 "$bin" "$corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
  -artifact_prefix="artifacts/$target/" -print_final_stats=1 > "$log" 2>&1 || status=$?
stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
execs=$(stat number_of_executed_units)
rate=$(stat average_exec_per_sec)
units=$(ls "$corpus" | wc -l)
if [ "$status" -ne 0 ]; then
  grep -vE '^#[0-9]+' "$log" | tail -60
  for f in $(sed -n "s/.*Test unit written to \(.*\)$/\1/p" "$log"); do
    echo "crash input $f (base64): $(base64 -w0 "$f")"
  done
  echo "fuzz $target: CRASH after ${execs:-?} executions (exit $status); reproduce: fuzz/$bin FILE"
  exit 1
fi
echo "fuzz $target: ${execs:-?} executions in ${seconds} s (${rate:-?} exec/s), $units corpus inputs, 0 crashes"
