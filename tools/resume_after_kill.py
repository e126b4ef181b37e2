#!/usr/bin/env python3
"""A dense evaluation killed mid-corpus and run again, against the same evaluation uninterrupted.

On one BEIR folder (e.g. one written by `./tenbin bench corpus --documents 100000 --out DIR`):
  1. ./tenbin eval --dataset DIR --retriever dense:MODEL, uninterrupted, with an empty embedding cache.
  2. The same with another empty cache, killed with SIGKILL (the whole process group) once FRACTION of
     the corpus slices are recorded in the cache's slices.tsv.
  3. The same command again on the second cache: it resumes at the first unfinished slice.
Prints one JSON object: wall seconds of each run, the slices recorded at the kill, the resume line the
rerun printed, whether every run file of 1 and 3 is byte-identical, and both runs' document encode
time (the resumed run counts each slice at the time measured when it was encoded).

Usage: tools/resume_after_kill.py --dataset DIR [--model all-minilm-l6-v2] [--fraction 0.5] [--work DIR]
"""
import argparse
import filecmp
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = 4096


def command(args, cache, out):
    return [os.path.join(ROOT, "tenbin"), "eval", "--dataset", args.dataset,
            "--retriever", "dense:" + args.model, "--cache-dir", cache, "--out", out]


def run(cmd, log):
    print("$", " ".join(cmd), file=sys.stderr, flush=True)
    start = time.perf_counter()
    with open(log, "w") as err:
        code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=err).returncode
    return code, time.perf_counter() - start


def recorded_slices(cache):
    count = 0
    for path in glob.glob(os.path.join(cache, "**", "slices.tsv"), recursive=True):
        with open(path) as f:
            count += sum(1 for line in f if line.endswith("\n"))
    return count


def documents(dataset):
    with open(os.path.join(dataset, "corpus.jsonl"), "rb") as f:
        return sum(1 for line in f if line.strip())


def encode_ms(out):
    with open(os.path.join(out, "results.json")) as f:
        runs = json.load(f)["runs"]
    return {r["variant"]: r["timings_ms"]["document_encode_ms"] for r in runs}


def same_runs(a, b):
    names = sorted(os.listdir(os.path.join(a, "runs")))
    if names != sorted(os.listdir(os.path.join(b, "runs"))):
        return False
    return all(filecmp.cmp(os.path.join(a, "runs", n), os.path.join(b, "runs", n), shallow=False)
               for n in names)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--model", default="all-minilm-l6-v2")
    parser.add_argument("--fraction", type=float, default=0.5)
    parser.add_argument("--work", default=None, help="scratch folder (default: a new temporary one)")
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="tenbin-resume-")
    os.makedirs(work, exist_ok=True)
    docs = documents(args.dataset)
    slices = (docs + SLICE - 1) // SLICE
    kill_at = max(1, min(slices - 1, int(slices * args.fraction)))
    result = {"dataset": os.path.abspath(args.dataset), "documents": docs, "model": args.model,
              "slices": slices}

    code, wall = run(command(args, os.path.join(work, "cache-a"), os.path.join(work, "a")),
                     os.path.join(work, "a.log"))
    if code != 0:
        sys.exit("the uninterrupted run failed (exit %d); see %s/a.log" % (code, work))
    result["uninterrupted_wall_s"] = round(wall, 1)

    cache_b, out_b = os.path.join(work, "cache-b"), os.path.join(work, "b")
    cmd = command(args, cache_b, out_b)
    print("$", " ".join(cmd), "(killed at slice %d of %d)" % (kill_at, slices), file=sys.stderr)
    start = time.perf_counter()
    with open(os.path.join(work, "b-killed.log"), "w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        while proc.poll() is None and recorded_slices(cache_b) < kill_at:
            time.sleep(0.2)
        if proc.poll() is not None:
            sys.exit("the run to be killed ended first (exit %d)" % proc.returncode)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    result["killed_after_s"] = round(time.perf_counter() - start, 1)
    result["slices_recorded_at_kill"] = recorded_slices(cache_b)

    code, wall = run(cmd, os.path.join(work, "b.log"))
    if code != 0:
        sys.exit("the resumed run failed (exit %d); see %s/b.log" % (code, work))
    result["resumed_wall_s"] = round(wall, 1)
    with open(os.path.join(work, "b.log")) as f:
        result["resume_line"] = next((line.strip() for line in f if "resuming at slice" in line), None)
    result["run_files_identical"] = same_runs(os.path.join(work, "a"), out_b)
    a, b = encode_ms(os.path.join(work, "a")), encode_ms(out_b)
    result["document_encode_ms_uninterrupted"] = round(a["base"], 1)
    result["document_encode_ms_resumed"] = round(b["base"], 1)
    result["encode_ms_ratio_resumed_to_uninterrupted"] = round(b["base"] / a["base"], 3)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
