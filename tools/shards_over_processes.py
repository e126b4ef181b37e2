#!/usr/bin/env python3
"""An evaluation over K shards held by separate index processes, against one embedded collection.

On one BEIR folder (e.g. one written by `./tenbin bench corpus --documents 1000000 --out DIR`):
  1. the reference: ./tenbin eval --dataset DIR --retriever RETRIEVER --top-k TOPK (embedded index,
     one shard, in the eval's own process; dense retrievers share one embedding cache, WORK/cache, so
     the corpus is encoded once);
  2. for each K of --shards: max(K, R) index servers (`./tenbin serve index`, each its own process and
     data folder on a loopback port), then the same eval with --shards K --replicas R --index-pods
     naming them; with --kill-after S, the server of the first pod is killed with SIGKILL S seconds
     after the eval started (R >= 2: its replicas are left out and the run must go on).
Each run's run files (one per variant) are compared byte for byte with the reference's. Prints one JSON object: per run
the exit code, wall seconds, index and search seconds (the eval's timings), queries/s, nDCG@10, the
peak resident memory (MiB, sampled every 0.2 s from /proc) of the eval process and of each index
process and their sum, whether every run file is byte-identical to the reference's, and the eval's log
lines that left a replica out and those of its repair.

Usage: tools/shards_over_processes.py --dataset DIR [--retriever bm25] [--shards 1,2,4] [--replicas 1] [--top-k 100]
         [--kill-after SECONDS] [--no-reference] [--work DIR]
"""
import argparse
import filecmp
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from proc_memory import SAMPLE_SECONDS, status_kib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TENBIN = os.path.join(ROOT, "tenbin")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(folder, port, log_path):
    """Starts `tenbin serve index` and waits until it logs that it listens (the launcher execs the
    JVM, so the Popen's pid is the server's)."""
    log = open(log_path, "w")
    proc = subprocess.Popen([TENBIN, "serve", "index", "--port", str(port), "--data-dir", folder],
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"the index server on port {port} ended with exit {proc.returncode}: see {log_path}")
        with open(log_path) as f:
            if "listening on" in f.read():
                return proc
        time.sleep(0.2)
    proc.kill()
    sys.exit(f"the index server on port {port} did not start within 300 s: see {log_path}")


def run_eval(args, out_dir, log_path, extra, servers, kill_after):
    """Runs the eval, sampling the peak RSS of it and of each server; kills servers[0] with SIGKILL
    kill_after seconds in (None: never)."""
    shutil.rmtree(out_dir, ignore_errors=True)
    cmd = [TENBIN, "eval", "--dataset", args.dataset, "--retriever", args.retriever, "--language", "en",
           "--top-k", str(args.top_k), "--cache-dir", os.path.join(args.work, "cache"), "--out", out_dir,
           "--json"] + extra
    print("$", " ".join(cmd), file=sys.stderr, flush=True)
    peaks = [0] * (len(servers) + 1)
    killed_at = None
    start = time.monotonic()
    with open(log_path, "w") as log, tempfile.TemporaryFile(mode="w+") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=log, start_new_session=True)
        while proc.poll() is None:
            for i, pid in enumerate([proc.pid] + [s.pid for s in servers]):
                peaks[i] = max(peaks[i], status_kib(pid, "VmRSS")[0])
            if kill_after is not None and killed_at is None and time.monotonic() - start >= kill_after:
                os.killpg(servers[0].pid, signal.SIGKILL)
                killed_at = round(time.monotonic() - start, 1)
                print(f"killed the index server of pod 0 at {killed_at} s", file=sys.stderr, flush=True)
            time.sleep(SAMPLE_SECONDS)
        wall = time.monotonic() - start
        out.seek(0)
        printed = out.read()
    entry = {"exit": proc.returncode, "wall_s": round(wall, 1),
             "peak_rss_mib": {"eval": round(peaks[0] / 1024)}}
    for i, peak in enumerate(peaks[1:]):
        entry["peak_rss_mib"][f"index_{i}"] = round(peak / 1024)
    entry["peak_rss_mib"]["sum"] = sum(entry["peak_rss_mib"].values())
    if killed_at is not None:
        entry["killed_pod_0_at_s"] = killed_at
    with open(log_path) as f:
        lines = f.readlines()
    entry["left_out"] = [line.strip() for line in lines if "leaving out replica" in line]
    entry["repair"] = [line.strip() for line in lines if "ReplicaRepair" in line]
    if proc.returncode != 0:
        entry["error"] = printed[-2000:]
        return entry
    for run in json.loads(printed)["runs"]:
        timings = run["timings_ms"]
        entry[run["variant"]] = {
            "index_s": round(timings["index_ms"] / 1000, 1),
            "search_s": round(timings["search_ms"] / 1000, 2),
            "queries_per_s": round(run["num_queries"] / (timings["search_ms"] / 1000), 1),
            "ndcg@10": run["metrics"]["ndcg@10"]}
        # A sharded run's statistics phase and merge: parts of its search time.
        for key in ("shard_statistics_ms", "shard_merge_ms"):
            if key in run.get("diagnostics", {}):
                entry[run["variant"]][key] = round(run["diagnostics"][key], 1)
    return entry


def same_runs(reference, other):
    """Whether other/runs holds the same run files as reference/runs, byte for byte."""
    names = sorted(os.listdir(os.path.join(reference, "runs")))
    return len(names) > 0 and names == sorted(os.listdir(os.path.join(other, "runs"))) and all(
        filecmp.cmp(os.path.join(reference, "runs", n), os.path.join(other, "runs", n), shallow=False)
        for n in names)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--retriever", default="bm25", help="as tenbin eval's, e.g. dense:all-minilm-l6-v2")
    parser.add_argument("--shards", default="1,2,4", help="comma-separated K values")
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--top-k", type=int, default=100)
    parser.add_argument("--kill-after", type=float, default=None,
                        help="SIGKILL the first index server this many seconds into each sharded eval")
    parser.add_argument("--no-reference", action="store_true",
                        help="reuse the reference run already in WORK/reference")
    parser.add_argument("--work", default=None, help="scratch folder (default: a new temporary one)")
    args = parser.parse_args()
    args.dataset = os.path.abspath(args.dataset)
    work = args.work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="tenbin-shards-"))
    os.makedirs(work, exist_ok=True)
    result = {"dataset": args.dataset, "retriever": args.retriever, "replicas": args.replicas,
              "top_k": args.top_k}

    reference = os.path.join(work, "reference")
    if not args.no_reference:
        result["reference"] = run_eval(args, reference, os.path.join(work, "reference.log"), [], [], None)
        if result["reference"]["exit"] != 0:
            print(json.dumps(result, indent=2))
            sys.exit(1)

    for k in [int(s) for s in args.shards.split(",")]:
        label = f"shards_{k}_replicas_{args.replicas}"
        folder = os.path.join(work, label)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        servers, pods = [], []
        try:
            for i in range(max(k, args.replicas)):
                port = free_port()
                servers.append(start_server(os.path.join(folder, f"index-{i}"), port,
                                            os.path.join(folder, f"index-{i}.log")))
                pods.append(f"127.0.0.1:{port}")
            extra = ["--shards", str(k), "--replicas", str(args.replicas), "--index-pods", ",".join(pods)]
            entry = run_eval(args, os.path.join(folder, "out"), os.path.join(folder, "eval.log"), extra,
                             servers, args.kill_after)
        finally:
            for server in servers:
                if server.poll() is None:
                    os.killpg(server.pid, signal.SIGTERM)
            for server in servers:
                try:
                    server.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
        if entry["exit"] == 0 and os.path.isdir(os.path.join(reference, "runs")):
            entry["run_files_identical"] = same_runs(reference, os.path.join(folder, "out"))
        result[label] = entry
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
