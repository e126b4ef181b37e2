#!/usr/bin/env bash
# Where a service's CPU goes under load: runs `tenbin bench bm25 --server-cpu` (index) or
# `tenbin bench rerank --server-cpu` (rerank) and samples the service's process (`tenbin serve
# index|rerank`, started by the bench) with Linux perf, call graphs included, kernel and native
# frames as well as Java's (the JVMs run with -XX:+PreserveFramePointer and write /tmp/perf-PID.map
# at exit for the JIT's frames).
#
# Usage: tools/profile_service.sh index|stream|rerank [DATASET] [SECONDS] [OUT] [DELAY]
#   index    BM25 searches at 8 requests in flight (60,000 a side)
#   stream   `tenbin bench bm25 --passes 300 --threads 1`, whose index service runs inside the
#            bench's JVM: that JVM is sampled, and OUT/stream.txt splits the handler threads'
#            samples for the search stream's requests into the search (Lucene), sending the answer
#            (of it, the kernel's part: waking the event loop that writes it, and being switched
#            out for it) and the rest
#   rerank   dense:bge-small-en-v1.5 reranking 100 inline candidates a request, at 1, 2 and 8 in
#            flight (600 requests a side and level, after the bench's default warm-up)
#   DATASET  BEIR folder (default ../shared/datasets/msmarco-5k for index and stream, xquad-en for
#            rerank, beside the checkout)
#   SECONDS  how long perf samples, or "all" for the service's whole life (default 20 for index,
#            30 for stream, all for rerank)
#   OUT      folder for perf.data and the reports (default /tmp/tenbin-SERVICE-profile)
#   DELAY    seconds from the service's start to the first sample (default 40 for index and
#            stream: on 2 cores, past the indexing and the 20,000 warm-up searches of each side; 0
#            for rerank)
# Writes OUT/threads.txt (CPU by thread), OUT/objects.txt (by binary: JIT code, libjvm, kernel),
# OUT/symbols.txt (the 60 hottest functions), OUT/timeline.txt (samples by 10 s from the first, in
# the JIT compiler threads, the gRPC handler threads, the Netty event loops and the rest) and
# OUT/bench.txt (the bench's own report).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
service=${1:-}
case "$service" in
  index)
    dataset=${2:-$root/../shared/datasets/msmarco-5k}
    seconds=${3:-20}
    delay=${5:-40}
    bench=(bench bm25 --dataset "$dataset" --language en --server-cpu --in-flight 8 --searches 60000)
    ;;
  stream)
    dataset=${2:-$root/../shared/datasets/msmarco-5k}
    seconds=${3:-30}
    delay=${5:-40}
    bench=(bench bm25 --dataset "$dataset" --language en --passes 300 --threads 1)
    ;;
  rerank)
    dataset=${2:-$root/../shared/datasets/xquad-en}
    seconds=${3:-all}
    delay=${5:-0}
    bench=(bench rerank --model dense:bge-small-en-v1.5 --dataset "$dataset" --server-cpu --requests 600)
    ;;
  *)
    echo "usage: tools/profile_service.sh index|stream|rerank [DATASET] [SECONDS] [OUT] [DELAY]" >&2
    exit 2
    ;;
esac
out=${4:-/tmp/tenbin-$service-profile}
mkdir -p "$out"
command -v perf >/dev/null || { echo "perf is not installed (Debian: apt install linux-perf)" >&2; exit 2; }

"$root/tenbin" --version >/dev/null   # build first, so that the timing below is the bench's
TENBIN_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer" \
  "$root/tenbin" "${bench[@]}" > "$out/bench.txt" 2> "$out/bench.log" &
bench_pid=$!
pid=
process="TenbinCli serve $service"
[ "$service" = stream ] && process="BenchCli bm25"
for _ in $(seq 1 120); do
  pid=$(pgrep -f "$process" | head -n 1 || true)
  [ -n "$pid" ] && break
  sleep 1
done
[ -n "$pid" ] || { echo "the $service service did not start; see $out/bench.log" >&2; kill "$bench_pid"; exit 1; }
sleep "$delay"
if [ "$seconds" = all ]; then
  # perf stops by itself when the service's process exits at the end of the bench.
  perf record -F 499 -g -p "$pid" -o "$out/perf.data" 2> "$out/perf.log"
else
  perf record -F 499 -g -p "$pid" -o "$out/perf.data" -- sleep "$seconds" 2> "$out/perf.log"
fi
wait "$bench_pid"
report=(perf report -i "$out/perf.data" --no-children -g none -q)
"${report[@]}" --sort comm > "$out/threads.txt" 2>/dev/null
"${report[@]}" --sort dso > "$out/objects.txt" 2>/dev/null
# sed, not head: it reads to the end, so perf is not killed by a closed pipe (which set -o pipefail
# would turn into the script's failure).
"${report[@]}" --sort sym 2>/dev/null | sed -n '1,60p' > "$out/symbols.txt"
perf script -i "$out/perf.data" -F comm,time 2>/dev/null | awk '
  NF >= 2 {
    t = $NF; sub(/:$/, "", t); t += 0
    comm = $1
    group = "other"
    if (comm ~ /^C[12]/) group = "jit"
    else if (comm ~ /^grpc-handler/) group = "handlers"
    else if (comm ~ /^grpc-default-wo/) group = "event_loops"
    if (first == "") first = t
    bucket = int((t - first) / 10)
    count[bucket, group]++
    if (bucket > last) last = bucket
  }
  END {
    print "from_s jit handlers event_loops other"
    for (b = 0; b <= last; b++)
      printf "%d %d %d %d %d\n", b * 10, count[b, "jit"], count[b, "handlers"], count[b, "event_loops"], count[b, "other"]
  }' > "$out/timeline.txt"
reports=("$out/threads.txt" "$out/objects.txt" "$out/timeline.txt")
if [ "$service" = stream ]; then
  # One sample is a header line (thread, time) and its frames, leaf first, then a blank line.
  perf script -i "$out/perf.data" -F comm,ip,sym 2>/dev/null | awk '
    function close_sample() {
      if (handler && streamed) {
        total++
        if (lucene) search++
        else if (sending) { send++; if (kernel) wake++ }
        else rest++
      }
      handler = streamed = lucene = sending = kernel = 0
    }
    NF > 0 && !/^\t/ {
      close_sample()
      handler = ($0 ~ /grpc-handler/)
      next
    }
    NF == 0 { close_sample(); next }
    {
      if ($0 ~ /StreamingServerCallListener/) streamed = 1
      if ($0 ~ /org\.apache\.lucene|ScoreThenIdTopK/) lucene = 1
      if ($0 ~ /ServerCall[A-Za-z$]*\.sendMessage/) sending = 1
      if ($0 ~ /eventFdWrite|finish_task_switch|_raw_spin_unlock/) kernel = 1
    }
    END {
      close_sample()
      if (total == 0) { print "no handler samples of the search stream"; exit }
      printf "handler samples of the search stream: %d\n", total
      printf "search (Lucene)        %5.1f%%\n", 100 * search / total
      printf "sending the answer     %5.1f%%  (of all: %.1f%% waking the event loop or switched out)\n", 100 * send / total, 100 * wake / total
      printf "the rest               %5.1f%%\n", 100 * rest / total
    }' > "$out/stream.txt"
  reports+=("$out/stream.txt")
fi
cat "${reports[@]}"
