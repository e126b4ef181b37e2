#!/usr/bin/env python3
"""BM25 speed and effectiveness of Tenbin against Anserini 1.5.0 on one BEIR folder.

Runs, in one go on the same machine:
  1. Anserini 1.5.0 (fat jar, never a project dependency): IndexCollection -collection
     BeirFlatCollection (title + " " + text in one field, as REFERENCE.md), then SearchCollection
     -bm25 (k1 0.9, b 0.4) -hits HITS with -threads 1 and -threads 2. Search speed is measured as
     (time of PASSES passes - time of 1 pass) / ((PASSES - 1) x queries), which removes the JVM
     start and index opening ("wall diff"), and as Anserini logs it for the PASSES-pass run ("its
     log": its search phase, writing the run included); each pass repeats the evaluated queries
     under fresh ids.
  2. ./tenbin bench bm25 --top-k HITS --threads 2 (in-process 1 thread, in-process 2 threads, gRPC).
  3. ./tenbin eval --retriever bm25 --top-k HITS, and trec_eval nDCG@10 of both runs, plus how many
     queries have exactly the same ranked document list.

Usage: tools/bm25_vs_anserini.py [--dataset DIR] [--jar FILE] [--trec-eval PATH] [--passes 20] [--hits 1000]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

JAVA = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "java")
# trec_eval and the collections sit in a folder `shared` beside the checkout.
SHARED = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "shared")
TREC_EVAL = os.path.join(SHARED, "tools", "trec_eval", "trec_eval")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    print("$", " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, **kw)


def timed(cmd):
    """Wall seconds of the process, and the queries/s Anserini logs for its search phase."""
    start = time.perf_counter()
    log = run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    seconds = time.perf_counter() - start
    logged = re.findall(r"queries processed in \S+ = ~([0-9.]+) q/s", log)
    return seconds, float(logged[-1]) if logged else float("nan")


def read_qrels(path, out):
    queries = []
    with open(path) as src, open(out, "w") as dst:
        for line in src:
            parts = line.split()
            if len(parts) < 3 or not parts[2].lstrip("-").isdigit():
                continue  # header
            dst.write(f"{parts[0]} 0 {parts[1]} {parts[2]}\n")
            if parts[0] not in queries:
                queries.append(parts[0])
    return queries


def ndcg10(trec_eval, qrels, run_file):
    out = subprocess.run(
        [trec_eval, "-c", "-m", "ndcg_cut.10", qrels, run_file],
        check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def rankings(run_file):
    ranked = {}
    with open(run_file) as f:
        for line in f:
            q, _, doc, rank, score, _ = line.split()
            ranked.setdefault(q, []).append((int(rank), doc))
    return {q: [d for _, d in sorted(v)] for q, v in ranked.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default=os.path.join(SHARED, "datasets", "msmarco-5k"))
    ap.add_argument("--jar", default="/tmp/anserini-1.5.0-fatjar.jar")
    ap.add_argument("--language", default="en")
    ap.add_argument("--passes", type=int, default=20)
    ap.add_argument("--hits", type=int, default=1000)
    ap.add_argument("--trec-eval", default=TREC_EVAL)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="bm25-vs-anserini-")
    qrels = os.path.join(work, "qrels.trec")
    evaluated = read_qrels(os.path.join(args.dataset, "qrels", "test.tsv"), qrels)
    texts = {}
    with open(os.path.join(args.dataset, "queries.jsonl")) as f:
        for line in f:
            q = json.loads(line)
            texts[q["_id"]] = q["text"]
    evaluated = [q for q in evaluated if q in texts]

    def topics(passes):
        path = os.path.join(work, f"topics-{passes}.tsv")
        with open(path, "w") as f:
            for p in range(passes):
                for q in evaluated:
                    qid = q if passes == 1 else f"{q}_p{p}"
                    f.write(qid + "\t" + texts[q].replace("\t", " ").replace("\n", " ") + "\n")
        return path

    # Anserini: index (BeirFlatCollection reads corpus.jsonl; link it alone into the input folder).
    corpus_dir = os.path.join(work, "corpus")
    os.makedirs(corpus_dir)
    os.symlink(os.path.join(args.dataset, "corpus.jsonl"), os.path.join(corpus_dir, "corpus.jsonl"))
    index = os.path.join(work, "anserini-index")
    run([JAVA, "-cp", args.jar, "io.anserini.index.IndexCollection", "-collection",
         "BeirFlatCollection", "-input", corpus_dir, "-index", index, "-generator",
         "DefaultLuceneDocumentGenerator", "-threads", "1", "-language", args.language],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def search(topic_file, threads, out):
        return timed([JAVA, "-cp", args.jar, "io.anserini.search.SearchCollection", "-index", index,
                      "-topics", topic_file, "-topicReader", "TsvString", "-output", out, "-bm25",
                      "-bm25.k1", "0.9", "-bm25.b", "0.4", "-hits", str(args.hits), "-threads",
                      str(threads), "-language", args.language])

    one, many = topics(1), topics(args.passes)
    anserini_run = os.path.join(work, "anserini.run")
    anserini, logged = {}, {}
    for threads in (1, 2):
        search(one, threads, anserini_run)  # warm the page cache
        t1, _ = search(one, threads, anserini_run)
        tn, logged[threads] = search(many, threads, os.path.join(work, "anserini-many.run"))
        anserini[threads] = (args.passes - 1) * len(evaluated) / (tn - t1)

    # Tenbin: bench (speed) and eval (run file for effectiveness).
    bench = json.loads(subprocess.run(
        [os.path.join(ROOT, "tenbin"), "bench", "bm25", "--dataset", args.dataset, "--language",
         args.language, "--passes", str(args.passes), "--warm-up-passes", str(args.passes),
         "--top-k", str(args.hits), "--threads", "2",
         "--json"], check=True, capture_output=True, text=True, cwd=ROOT).stdout.strip().splitlines()[-1])
    out = os.path.join(work, "tenbin-eval")
    run([os.path.join(ROOT, "tenbin"), "eval", "--dataset", args.dataset, "--retriever", "bm25",
         "--language", args.language, "--top-k", str(args.hits), "--out", out, "--json"],
        stdout=subprocess.DEVNULL, cwd=ROOT)
    runs = [p for p in glob.glob(os.path.join(out, "**", "*"), recursive=True)
            if os.path.isfile(p) and ("run" in os.path.basename(p) or p.endswith(".trec"))
            and "bm25" in p.lower()]
    if not runs:
        sys.exit(f"no bm25 run file under {out}")
    tenbin_run = runs[0]

    a_rank, t_rank = rankings(anserini_run), rankings(tenbin_run)
    same = sum(1 for q in evaluated if a_rank.get(q, []) == t_rank.get(q, []))
    a_ndcg, t_ndcg = ndcg10(args.trec_eval, qrels, anserini_run), ndcg10(args.trec_eval, qrels, tenbin_run)
    print(f"dataset {args.dataset}: {len(evaluated)} evaluated queries x {args.passes} passes, "
          f"top {args.hits}, load average {os.getloadavg()[0]:.2f} at the end")
    print(f"{'':28}{'1 thread':>12}{'2 threads':>12}   (queries/s)")
    print(f"{'Anserini 1.5.0 (wall diff)':28}{anserini[1]:12.0f}{anserini[2]:12.0f}")
    print(f"{'Anserini 1.5.0 (its log)':28}{logged[1]:12.0f}{logged[2]:12.0f}")
    print(f"{'Tenbin in-process':28}{bench['in_process_queries_per_s']:12.0f}"
          f"{bench['in_process_parallel_queries_per_s']:12.0f}")
    print(f"{'Tenbin gRPC (loopback)':28}{bench['grpc_queries_per_s']:12.0f}")
    print(f"{'Tenbin/Anserini (its log)':28}{bench['in_process_queries_per_s'] / logged[1]:12.2f}"
          f"{bench['in_process_parallel_queries_per_s'] / logged[2]:12.2f}")
    print(f"nDCG@10 (trec_eval -c): Anserini {a_ndcg:.4f}, Tenbin {t_ndcg:.4f} "
          f"({'identical' if a_ndcg == t_ndcg else 'DIFFERENT'}); "
          f"same top-{args.hits} ranking for {same}/{len(evaluated)} queries")
    print(f"runs: {anserini_run} {tenbin_run}")


if __name__ == "__main__":
    main()
