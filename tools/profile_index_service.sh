#!/usr/bin/env bash
# Where the index service's CPU goes under load: runs `tenbin bench bm25 --server-cpu` at 8
# requests in flight and samples the service's process (`tenbin serve index`, started by the bench)
# with Linux perf, call graphs included, kernel and native frames as well as Java's (the JVMs run
# with -XX:+PreserveFramePointer and write /tmp/perf-PID.map at exit for the JIT's frames).
#
# Usage: tools/profile_index_service.sh [DATASET] [SECONDS] [OUT] [DELAY]
#   DATASET  BEIR folder (default ../shared/datasets/msmarco-5k beside the checkout)
#   SECONDS  how long perf samples (default 20)
#   OUT      folder for perf.data and the reports (default /tmp/tenbin-index-profile)
#   DELAY    seconds from the service's start to the first sample (default 40: on 2 cores, past
#            the indexing and the 20,000 warm-up searches of each side, into the measured ones)
# Writes OUT/threads.txt (CPU by thread), OUT/objects.txt (by binary: JIT code, libjvm, kernel),
# OUT/symbols.txt (the 60 hottest functions) and OUT/bench.txt (the bench's own table).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dataset=${1:-$root/../shared/datasets/msmarco-5k}
seconds=${2:-20}
out=${3:-/tmp/tenbin-index-profile}
delay=${4:-40}
mkdir -p "$out"
command -v perf >/dev/null || { echo "perf is not installed (Debian: apt install linux-perf)" >&2; exit 2; }

"$root/tenbin" --version >/dev/null   # build first, so that the timing below is the bench's
TENBIN_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer" \
  "$root/tenbin" bench bm25 --dataset "$dataset" --language en --server-cpu --in-flight 8 \
  --searches 60000 > "$out/bench.txt" 2> "$out/bench.log" &
bench=$!
pid=
for _ in $(seq 1 120); do
  pid=$(pgrep -f "TenbinCli serve index" | head -n 1 || true)
  [ -n "$pid" ] && break
  sleep 1
done
[ -n "$pid" ] || { echo "the index service did not start; see $out/bench.log" >&2; kill "$bench"; exit 1; }
sleep "$delay"
perf record -F 499 -g -p "$pid" -o "$out/perf.data" -- sleep "$seconds" 2> "$out/perf.log"
wait "$bench"
report=(perf report -i "$out/perf.data" --no-children -g none -q)
"${report[@]}" --sort comm > "$out/threads.txt" 2>/dev/null
"${report[@]}" --sort dso > "$out/objects.txt" 2>/dev/null
"${report[@]}" --sort sym 2>/dev/null | head -n 60 > "$out/symbols.txt"
cat "$out/threads.txt" "$out/objects.txt"
