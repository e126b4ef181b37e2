#!/usr/bin/env python3
"""Checks `tenbin metrics` against the reference evaluator trec_eval on one run and qrels, and times both.

    python3 tools/metrics_vs_trec_eval.py --qrels QRELS --run RUN [--trec-eval PATH] [--repeat 3]

Values: every mean of `./tenbin metrics --json` is printed with trec_eval's format (%.4f) and must equal the
string trec_eval -c prints for the same metric:

    ndcg@10/100, recall@10/100, accuracy@1/10/100, map@100:
        trec_eval -c -m ndcg_cut.10,100 -m recall.10,100 -m P.10 -m success.1,10,100 -m map_cut.100 QRELS RUN
    mrr@10 (trec_eval's recip_rank has no cut-off; -M 10 keeps the top 10 of each query after sorting):
        trec_eval -c -M 10 -m recip_rank QRELS RUN

Times (wall clock, median of --repeat runs, alternating the two tools): trec_eval computing all of the above in
one call (recip_rank uncut: the same work), and ./tenbin metrics --json with its JVM start, plus the in-JVM
read and evaluate times that tenbin reports in timings_ms. The load average of the machine is printed with them.

Exit status: 0 when every value is equal, 1 otherwise. Python 3.8+, no packages.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# trec_eval sits in a folder `shared` beside the checkout (--trec-eval names another).
DEFAULT_TREC_EVAL = os.path.join(os.path.dirname(ROOT), "shared", "tools", "trec_eval", "trec_eval")

# tenbin metric name -> (trec_eval measure as printed, extra trec_eval arguments)
MEASURES = {
    "ndcg@10": ("ndcg_cut_10", []),
    "ndcg@100": ("ndcg_cut_100", []),
    "recall@10": ("recall_10", []),
    "recall@100": ("recall_100", []),
    "precision@10": ("P_10", []),
    "accuracy@1": ("success_1", []),
    "accuracy@10": ("success_10", []),
    "accuracy@100": ("success_100", []),
    "map@100": ("map_cut_100", []),
    "mrr@10": ("recip_rank", ["-M", "10"]),
}
ALL_MEASURES = [
    "-m", "ndcg_cut.10,100", "-m", "recall.10,100", "-m", "P.10", "-m", "success.1,10,100",
    "-m", "map_cut.100",
]


def trec_eval(binary, extra, qrels, run):
    """Runs trec_eval -c; returns measure -> printed value of the 'all' rows."""
    done = subprocess.run([binary, "-c", *extra, qrels, run], capture_output=True, text=True)
    if done.returncode != 0:
        # trec_eval reads TREC qrels only (qid iter docid grade); a BEIR tsv needs converting first.
        sys.exit(f"trec_eval failed (exit {done.returncode}): {done.stderr.strip()}")
    out = done.stdout
    values = {}
    for line in out.splitlines():
        measure, query, value = line.split()
        if query == "all":
            values[measure] = value
    return values


def tenbin(qrels, run):
    out = subprocess.run(
        [os.path.join(ROOT, "tenbin"), "metrics", "--qrels", qrels, "--run", run, "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def timed(action):
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--qrels", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--trec-eval", default=DEFAULT_TREC_EVAL)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    reference = trec_eval(args.trec_eval, ALL_MEASURES, args.qrels, args.run)
    reference.update(trec_eval(args.trec_eval, ["-M", "10", "-m", "recip_rank"], args.qrels, args.run))
    ours = tenbin(args.qrels, args.run)
    lines = sum(1 for _ in open(args.run, "rb"))
    print(f"run {args.run}: {lines} lines; qrels {args.qrels}; {ours['num_queries']} judged queries")
    print()
    print("| metric | trec_eval -c | tenbin | equal |")
    print("|---|---|---|---|")
    all_equal = True
    for name, (measure, _) in MEASURES.items():
        theirs = reference[measure]
        mine = "%.4f" % ours["metrics"][name]
        equal = mine == theirs
        all_equal &= equal
        print(f"| {name} ({measure}) | {theirs} | {mine} ({ours['metrics'][name]!r}) | {'yes' if equal else 'NO'} |")
    print()

    trec_times, tenbin_times, read_ms, evaluate_ms = [], [], [], []
    load_before = os.getloadavg()
    for _ in range(args.repeat):
        seconds, _ = timed(
            lambda: trec_eval(args.trec_eval, [*ALL_MEASURES, "-m", "recip_rank"], args.qrels, args.run)
        )
        trec_times.append(seconds)
        seconds, result = timed(lambda: tenbin(args.qrels, args.run))
        tenbin_times.append(seconds)
        read_ms.append(result["timings_ms"]["read"])
        evaluate_ms.append(result["timings_ms"]["evaluate"])
    load_after = os.getloadavg()
    trec_s = statistics.median(trec_times)
    tenbin_s = statistics.median(tenbin_times)
    in_jvm_s = statistics.median([r + e for r, e in zip(read_ms, evaluate_ms)]) / 1000
    print(f"| timing (median of {args.repeat}) | seconds | over trec_eval |")
    print("|---|---|---|")
    print(f"| trec_eval -c (all measures, one call) | {trec_s:.2f} | 1.00 |")
    print(f"| ./tenbin metrics --json, wall (JVM start included) | {tenbin_s:.2f} | {tenbin_s / trec_s:.2f} |")
    print(
        f"| tenbin in the JVM: read {statistics.median(read_ms) / 1000:.2f} + evaluate"
        f" {statistics.median(evaluate_ms) / 1000:.2f} | {in_jvm_s:.2f} | {in_jvm_s / trec_s:.2f} |"
    )
    print()
    print("all runs (s): trec_eval " + ", ".join(f"{t:.2f}" for t in trec_times)
          + "; tenbin " + ", ".join(f"{t:.2f}" for t in tenbin_times))
    print(f"load average (1/5/15 min) before {load_before[0]:.1f}/{load_before[1]:.1f}/{load_before[2]:.1f},"
          f" after {load_after[0]:.1f}/{load_after[1]:.1f}/{load_after[2]:.1f}; {os.cpu_count()} CPUs")
    print("values equal: " + ("yes, every metric" if all_equal else "NO"))
    return 0 if all_equal else 1


if __name__ == "__main__":
    sys.exit(main())
