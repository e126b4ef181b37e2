#!/usr/bin/env python3
"""Memory and indexing speed of a BM25 evaluation at scale, Tenbin against Anserini 1.5.0, in one run.

On one BEIR folder (e.g. one written by `./tenbin bench corpus --documents 1000000 --out DIR`), each
under GNU time for its peak resident set size:
  1. Anserini 1.5.0 IndexCollection -collection BeirFlatCollection -threads T, once for each T of
     --threads (fat jar, never a project dependency: ./mvnw -q -N dependency:copy
     -Dartifact=io.anserini:anserini:1.5.0:jar:fatjar -DoutputDirectory=DIR).
  2. ./tenbin eval --dataset DIR --retriever bm25 --top-k 100 (index, search, metrics: the whole job).
  3. The same eval with TENBIN_JAVA_OPTS=-Xmx1g (HEAP).
  4. With --lucene-threads: ./tenbin bench lucene --dataset DIR --threads T --index DIR, once for
     each T: Lucene alone writing the same fields with the same analyzer, one IndexWriter fed by T
     threads, one commit (the floor under Tenbin's ingest on this machine); with
     --lucene-commit-every N, each also again committing after every N documents, as an ingest
     commits each corpus slice.
Prints one JSON object: wall seconds, CPU seconds (user + system, the whole process: for Anserini its
index, for Tenbin the whole evaluation), peak RSS (MiB) and the peaks of its anonymous and file-backed
parts, documents/s of each index phase (Anserini's from its log, Tenbin's from the eval's index_ms),
the ratio of Tenbin's peak RSS to Anserini's (the first of --threads) and of their indexing rates
(for each of --threads), and Lucene alone's rates against Anserini's (the first of --threads).

Usage: tools/scale_vs_anserini.py --dataset DIR --jar ANSERINI_FATJAR [--threads 1[,2...]] [--heap 1g]
                                  [--lucene-threads 1[,2...]] [--lucene-commit-every N] [--work DIR]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from proc_memory import SAMPLE_SECONDS, status_kib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JAVA = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "java")


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except (FileNotFoundError, ProcessLookupError):
        return []


def measured(cmd, env=None):
    """Runs cmd under GNU time -v; returns (exit code, wall seconds, peak RSS in MiB, output, the
    peaks of its anonymous and file-backed resident memory in MiB, sampled every 0.2 s from /proc:
    anonymous is what the process allocated, file-backed the pages of files it maps, such as index
    segments, that were read; and its CPU seconds, user + system)."""
    print("$", " ".join(cmd), file=sys.stderr, flush=True)
    start = time.perf_counter()
    with tempfile.TemporaryFile(mode="w+") as log:
        proc = subprocess.Popen(["/usr/bin/time", "-v"] + cmd, stdout=log, stderr=subprocess.STDOUT,
                                text=True, env=env)
        anon = file_backed = 0
        while proc.poll() is None:
            # the command runs as GNU time's child (the launcher execs the JVM in its place)
            for pid in children(proc.pid):
                a, f = status_kib(pid, "RssAnon", "RssFile")
                anon, file_backed = max(anon, a), max(file_backed, f)
            time.sleep(SAMPLE_SECONDS)
        wall = time.perf_counter() - start
        log.seek(0)
        out = log.read()
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", out)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([0-9.]+)", out))
    return (proc.returncode, wall, (int(rss.group(1)) / 1024 if rss else float("nan")), out,
            round(anon / 1024), round(file_backed / 1024), round(cpu, 1))


def documents(dataset):
    path = os.path.join(dataset, "corpus.jsonl")
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return sum(1 for line in f if line.strip())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--jar", required=True, help="Anserini 1.5.0 fat jar")
    parser.add_argument("--threads", default="1",
                        help="Anserini's indexing threads, one run for each of a comma-separated list")
    parser.add_argument("--heap", default="1g")
    parser.add_argument("--lucene-threads", default=None,
                        help="run `tenbin bench lucene` with each of these indexing thread counts")
    parser.add_argument("--lucene-commit-every", type=int, default=0,
                        help="also run each --lucene-threads count committing after every N documents")
    parser.add_argument("--work", default=None, help="scratch folder (default: a new temporary one)")
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="tenbin-scale-")
    os.makedirs(work, exist_ok=True)
    docs = documents(args.dataset)
    threads = [int(t) for t in args.threads.split(",")]
    result = {"dataset": os.path.abspath(args.dataset), "documents": docs, "threads": threads}

    for count in threads:
        index = os.path.join(work, "anserini-index")
        shutil.rmtree(index, ignore_errors=True)
        code, wall, rss, out, anon, file_backed, cpu = measured([
            JAVA, "-cp", args.jar, "io.anserini.index.IndexCollection",
            "-collection", "BeirFlatCollection", "-input", args.dataset, "-index", index,
            "-generator", "DefaultLuceneDocumentGenerator", "-threads", str(count),
            "-language", "en"])
        shutil.rmtree(index, ignore_errors=True)
        if code != 0:
            sys.exit("Anserini failed:\n" + out[-3000:])
        logged = re.search(r"Total (\d[\d,]*) documents indexed in (\d\d):(\d\d):(\d\d)", out)
        entry = {"threads": count, "wall_s": round(wall, 1), "cpu_s": cpu, "peak_rss_mib": round(rss),
                 "peak_anon_mib": anon, "peak_file_mib": file_backed}
        if logged:
            seconds = int(logged.group(2)) * 3600 + int(logged.group(3)) * 60 + int(logged.group(4))
            indexed = int(logged.group(1).replace(",", ""))
            entry["indexed"] = indexed
            entry["index_s"] = seconds
            if seconds > 0:
                entry["documents_per_s"] = round(indexed / seconds)
        result["anserini" if count == threads[0] else f"anserini_threads_{count}"] = entry

    tenbin = os.path.join(ROOT, "tenbin")
    for label, heap in (("tenbin_eval", None), ("tenbin_eval_heap", args.heap)):
        env = dict(os.environ)
        if heap:
            env["TENBIN_JAVA_OPTS"] = (env.get("TENBIN_JAVA_OPTS", "") + " -Xmx" + heap).strip()
        out_dir = os.path.join(work, label)
        shutil.rmtree(out_dir, ignore_errors=True)
        code, wall, rss, out, anon, file_backed, cpu = measured([tenbin, "eval", "--dataset", args.dataset,
                                         "--retriever", "bm25", "--top-k", "100", "--language", "en",
                                         "--out", out_dir, "--json"], env=env)
        entry = {"exit": code, "wall_s": round(wall, 1), "cpu_s": cpu, "peak_rss_mib": round(rss),
                 "peak_anon_mib": anon, "peak_file_mib": file_backed}
        if heap:
            entry["heap"] = heap
        if code != 0:
            entry["error"] = out[-2000:]
        else:
            match = re.search(r'"ndcg@10"\s*:\s*([0-9.]+)', out)
            if match:
                entry["ndcg@10"] = float(match.group(1))
            match = re.search(r'"index_ms"\s*:\s*([0-9.]+)', out)
            if match and docs:
                entry["index_s"] = round(float(match.group(1)) / 1000, 1)
                entry["documents_per_s"] = round(docs / (float(match.group(1)) / 1000))
        result[label] = entry
    lucene_runs = [(int(t), every) for t in (args.lucene_threads.split(",") if args.lucene_threads else [])
                   for every in ([0, args.lucene_commit_every] if args.lucene_commit_every else [0])]
    for count, every in lucene_runs:
        index = os.path.join(work, "lucene-index")
        shutil.rmtree(index, ignore_errors=True)
        code, wall, rss, out, anon, file_backed, cpu = measured([
            tenbin, "bench", "lucene", "--dataset", args.dataset, "--threads", str(count),
            "--commit-every", str(every), "--language", "en", "--index", index, "--json"])
        shutil.rmtree(index, ignore_errors=True)
        if code != 0:
            sys.exit("tenbin bench lucene failed:\n" + out[-3000:])
        bench = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
        label = f"lucene_threads_{count}" + (f"_commit_every_{every}" if every else "")
        result[label] = {
            "threads": count, "commit_every": every, "commits": bench["commits"],
            "wall_s": round(wall, 1), "cpu_s": cpu, "peak_rss_mib": round(rss),
            "peak_anon_mib": anon, "peak_file_mib": file_backed, "index_s": round(bench["index_seconds"], 1),
            "documents_per_s": round(bench["index_docs_per_s"]), "segments": bench["segments"]}
        if "documents_per_s" in result["anserini"]:
            result[f"indexing_ratio_{label}_to_anserini"] = round(
                bench["index_docs_per_s"] / result["anserini"]["documents_per_s"], 2)
        if "documents_per_s" in result["tenbin_eval"]:
            result[f"indexing_ratio_tenbin_to_{label}"] = round(
                result["tenbin_eval"]["documents_per_s"] / bench["index_docs_per_s"], 2)
    result["rss_ratio_tenbin_to_anserini"] = round(
        result["tenbin_eval"]["peak_rss_mib"] / result["anserini"]["peak_rss_mib"], 2)
    for count in threads:
        anserini = result["anserini" if count == threads[0] else f"anserini_threads_{count}"]
        if "documents_per_s" in result["tenbin_eval"] and "documents_per_s" in anserini:
            key = "indexing_ratio_tenbin_to_anserini" + ("" if count == threads[0] else f"_threads_{count}")
            result[key] = round(result["tenbin_eval"]["documents_per_s"] / anserini["documents_per_s"], 2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
