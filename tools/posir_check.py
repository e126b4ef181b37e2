#!/usr/bin/env python3
"""Recompute a PosIR position analysis independently of Tenbin, from the TREC run Tenbin wrote.

Nothing here is Tenbin code: per-query nDCG@10 and recall@100 are computed here as trec_eval -c
defines them, and checked against trec_eval -q's printed values (it prints 4 decimals); document
lengths from a WordPiece tokenizer written here from the tokenizer.json's vocabulary (BERT
normalisation and pre-tokenisation, greedy longest-match-first, no special tokens, no truncation),
and the statistics from SciPy. The result is compared with the "positions" object Tenbin printed
(`tenbin eval ... --positions --json`), value by value.

    python3 tools/posir_check.py --dataset DIR --run RUN.trec --tokenizer tokenizer.json \
        --tenbin-json eval.json [--length-reference DIR] [--min-count 5] [--trec-eval PATH]

Exit status 0 when every value agrees within 1e-9, 1 otherwise (each disagreement printed).
"""

import argparse
import csv
import json
import math
import subprocess
import sys
import tempfile
import unicodedata

from scipy import stats

BINS = 20
BUCKET_TOKENS = 512
BUCKETS = 5


# --- WordPiece token counts (BERT uncased), written from the algorithm's description -------------

def _is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def _is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


class WordPiece:
    def __init__(self, tokenizer_json):
        with open(tokenizer_json, encoding="utf-8") as f:
            spec = json.load(f)
        model = spec["model"]
        if model.get("type") != "WordPiece":
            raise SystemExit("posir_check: only WordPiece tokenizers are implemented here")
        self.vocab = model["vocab"]
        self.prefix = model.get("continuing_subword_prefix", "##")
        self.max_chars = model.get("max_input_chars_per_word", 100)
        normalizer = spec.get("normalizer") or {}
        self.lowercase = normalizer.get("lowercase", True)
        strip = normalizer.get("strip_accents")
        self.strip_accents = self.lowercase if strip is None else strip

    def _normalize(self, text):
        out = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or _is_control(ch):
                continue
            if _is_whitespace(ch):
                out.append(" ")
            elif _is_cjk(cp):
                out.append(" " + ch + " ")
            else:
                out.append(ch)
        text = "".join(out)
        if self.strip_accents:
            text = "".join(c for c in unicodedata.normalize("NFD", text)
                           if unicodedata.category(c) != "Mn")
        if self.lowercase:
            text = text.lower()
        return text

    def _words(self, text):
        for chunk in text.split():
            word = []
            for ch in chunk:
                if _is_punctuation(ch):
                    if word:
                        yield "".join(word)
                        word = []
                    yield ch
                else:
                    word.append(ch)
            if word:
                yield "".join(word)

    def count(self, text):
        tokens = 0
        for word in self._words(self._normalize(text)):
            if len(word) > self.max_chars:
                tokens += 1
                continue
            start, pieces = 0, 0
            while start < len(word):
                end = len(word)
                while end > start:
                    piece = word[start:end] if start == 0 else self.prefix + word[start:end]
                    if piece in self.vocab:
                        break
                    end -= 1
                if end == start:
                    pieces = 1  # the whole word becomes [UNK]
                    break
                pieces += 1
                start = end
            tokens += pieces
        return tokens


# --- inputs ---------------------------------------------------------------------------------------

def read_corpus(folder):
    docs = {}
    with open(folder + "/corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                doc = json.loads(line)
                docs[doc["_id"]] = (doc.get("title") or "", doc.get("text") or "")
    return docs


def read_spans(folder):
    spans = {}
    with open(folder + "/qrels/spans.tsv", encoding="utf-8") as f:
        for row in csv.reader(f, delimiter="\t"):
            if not row or row[0] == "query-id":
                continue
            query, doc, start, end = row[0], row[1], int(row[2]), int(row[3])
            kept = spans.get(query)
            if kept is None or (start, end) < (kept[1], kept[2]):
                spans[query] = (doc, start, end)
    return spans


def read_qrels(qrels):
    judged = {}
    with open(qrels, encoding="utf-8") as f:
        for row in csv.reader(f, delimiter="\t"):
            if row and row[0] != "query-id":
                judged.setdefault(row[0], {})[row[1]] = int(row[2])
    return judged


def per_query(trec_eval, qrels, run):
    """nDCG@10 and recall@100 per query as trec_eval -c defines them (gain = grade, log2(rank + 1)
    discount, ideal over all judged documents; ties by docno descending), computed here in full
    precision and checked against trec_eval -q's printed values (4 decimals)."""
    judged = read_qrels(qrels)
    ranked = {}
    with open(run, encoding="utf-8") as f:
        for line in f:
            query, _, doc, _, score, _ = line.split()
            ranked.setdefault(query, []).append((float(score), doc))
    values = {}
    for query, grades in judged.items():
        if not any(g > 0 for g in grades.values()):
            continue
        hits = sorted(ranked.get(query, []), key=lambda h: (-h[0], _reverse(h[1])))
        docs = [doc for _, doc in hits]
        dcg = sum(max(grades.get(doc, 0), 0) / math.log2(rank + 2)
                  for rank, doc in enumerate(docs[:10]))
        ideal = sorted((g for g in grades.values() if g > 0), reverse=True)
        idcg = sum(g / math.log2(rank + 2) for rank, g in enumerate(ideal[:10]))
        relevant = sum(1 for g in grades.values() if g > 0)
        found = sum(1 for doc in docs[:100] if grades.get(doc, 0) > 0)
        values[query] = {"ndcg@10": dcg / idcg, "recall@100": found / relevant}
    # trec_eval reads TREC qrels (qid iter docid rel): the BEIR tsv is rewritten, header dropped.
    with tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False) as trec:
        for query, grades in judged.items():
            for doc, grade in grades.items():
                trec.write(f"{query} 0 {doc} {grade}\n")
    out = subprocess.run([trec_eval, "-q", "-c", "-m", "ndcg_cut.10", "-m", "recall.100", trec.name,
                          run], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        measure, query, value = line.split()
        if query == "all":
            continue
        name = {"ndcg_cut_10": "ndcg@10", "recall_100": "recall@100"}[measure]
        if abs(values[query][name] - float(value)) > 5e-5:
            raise SystemExit(f"posir_check: {name} of {query}: {values[query][name]} here, "
                             f"trec_eval {value}")
    return values


class _reverse(str):
    """Orders strings descending (trec_eval breaks score ties by docno, descending)."""

    def __lt__(self, other):
        return str.__gt__(self, other)


# --- the analysis ---------------------------------------------------------------------------------

def bucket_of(tokens):
    if tokens <= BUCKET_TOKENS:
        return 0
    return min(BUCKETS - 1, (tokens - 1) // BUCKET_TOKENS)


def analyse(metrics, spans, docs, lengths_from, counter, min_count):
    lengths = {}
    buckets = [[[] for _ in range(BINS)] for _ in range(BUCKETS)]
    for query, values in metrics.items():
        if query not in spans:
            continue
        doc, start, end = spans[query]
        title, text = docs[doc]
        position = ((start + end) / 2) / len(text) if text else 0.0
        b = min(BINS - 1, math.floor(BINS * position))
        if doc not in lengths:
            ref_title, ref_text = lengths_from[doc]
            lengths[doc] = counter.count(ref_title + " " + ref_text if ref_title else ref_text)
        buckets[bucket_of(lengths[doc])][b].append(values)
    result = []
    for index, bins in enumerate(buckets):
        rows = []
        for b, members in enumerate(bins):
            n = len(members)
            rows.append({"bin": b, "queries": n,
                         "ndcg@10": sum(m["ndcg@10"] for m in members) / n if n else None,
                         "recall@100": sum(m["recall@100"] for m in members) / n if n else None})
        kept = [r for r in rows if r["queries"] >= min_count]
        xs = [r["bin"] for r in kept]
        ys = [r["ndcg@10"] for r in kept]
        stat = {"psi": None, "slope": None, "pearson": None, "spearman": None, "kendall": None}
        if len(kept) >= 2:
            stat["psi"] = 0.0 if max(ys) == 0 else 1 - min(ys) / max(ys)
            centres = [(x + 0.5) / BINS for x in xs]
            stat["slope"] = stats.linregress(centres, ys).slope
            if len(set(ys)) > 1:
                stat["pearson"] = stats.pearsonr(xs, ys)[0]
                stat["spearman"] = stats.spearmanr(xs, ys)[0]
                stat["kendall"] = stats.kendalltau(xs, ys)[0]
        result.append({"min_tokens": index * BUCKET_TOKENS,
                       "max_tokens": None if index == BUCKETS - 1 else (index + 1) * BUCKET_TOKENS,
                       "queries": sum(r["queries"] for r in rows), "bins": rows, **stat})
    return result


def compare(mine, tenbin, tolerance=1e-9):
    problems = []

    def same(path, a, b):
        if a is None or b is None:
            if a is not b and not (a is None and b is None):
                problems.append(f"{path}: independent {a} vs Tenbin {b}")
        elif abs(float(a) - float(b)) > tolerance:
            problems.append(f"{path}: independent {a!r} vs Tenbin {b!r}")

    if len(tenbin) != len(mine):
        problems.append(f"bucket count: independent {len(mine)} vs Tenbin {len(tenbin)}")
    for m, t in zip(mine, tenbin):
        name = f"bucket {m['min_tokens']}-{m['max_tokens']}"
        for key in ("min_tokens", "max_tokens", "queries", "psi", "slope", "pearson", "spearman",
                    "kendall"):
            same(f"{name} {key}", m[key], t.get(key))
        for mb, tb in zip(m["bins"], t["bins"]):
            for key in ("queries", "ndcg@10", "recall@100"):
                same(f"{name} bin {mb['bin']} {key}", mb[key], tb.get(key))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--tenbin-json", required=True,
                        help="the JSON `tenbin eval --positions --json` printed")
    parser.add_argument("--run-index", type=int, default=0,
                        help="which of the JSON's runs (default the first)")
    parser.add_argument("--length-reference")
    parser.add_argument("--min-count", type=int, default=5)
    parser.add_argument("--trec-eval", default="../shared/tools/trec_eval/trec_eval")
    args = parser.parse_args()

    docs = read_corpus(args.dataset)
    lengths_from = read_corpus(args.length_reference) if args.length_reference else docs
    metrics = per_query(args.trec_eval, args.dataset + "/qrels/test.tsv", args.run)
    mine = analyse(metrics, read_spans(args.dataset), docs, lengths_from,
                   WordPiece(args.tokenizer), args.min_count)
    with open(args.tenbin_json, encoding="utf-8") as f:
        printed = json.load(f)
    runs = printed.get("runs", [printed])
    tenbin = runs[args.run_index]["positions"]["buckets"]
    problems = compare(mine, tenbin)
    for bucket in mine:
        print(f"bucket ({bucket['min_tokens']}, {bucket['max_tokens']}]: {bucket['queries']} queries,"
              f" PSI {bucket['psi']}, slope {bucket['slope']}, pearson {bucket['pearson']},"
              f" spearman {bucket['spearman']}, kendall {bucket['kendall']}")
    if problems:
        print(f"{len(problems)} disagreements with Tenbin:")
        for problem in problems:
            print("  " + problem)
        return 1
    print("Tenbin's position analysis agrees with the independent recomputation (1e-9).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
