#!/usr/bin/env python3
"""Writes the bundled sample collections under samples/beir/ from XQuAD in BEIR layout.

Usage: tools/make_samples.py XQUAD_DIR [OUT_DIR]
  XQUAD_DIR holds xquad-en, xquad-de and xquad-en-long (BEIR folders with qrels/spans.tsv, converted from
  google-deepmind/xquad at commit 7d30520c717524000f0d9d2f9c10a069acd9d285, CC BY-SA 4.0).
  OUT_DIR defaults to samples/beir.

Each sample keeps every document of its collection and 200 of the 1,190 questions, the same in every
language: questions k * 1190 // 200 (k = 0..199) in file order, spread over all 48 articles. The judgments
and answer spans of those questions are kept, nothing else changes, and the output is byte-for-byte the same
on every run.
"""
import json
import os
import sys

SAMPLES = ["xquad-en", "xquad-de", "xquad-en-long"]
QUESTIONS = 200


def main():
    source = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "samples", "beir")
    with open(os.path.join(source, "xquad-en", "queries.jsonl"), encoding="utf-8") as f:
        ids = [json.loads(line)["_id"] for line in f if line.strip()]
    keep = [ids[k * len(ids) // QUESTIONS] for k in range(QUESTIONS)]
    kept = set(keep)
    for name in SAMPLES:
        src = os.path.join(source, name)
        dst = os.path.join(out, name)
        os.makedirs(os.path.join(dst, "qrels"), exist_ok=True)
        copy(os.path.join(src, "corpus.jsonl"), os.path.join(dst, "corpus.jsonl"), lambda line: True)
        copy(os.path.join(src, "queries.jsonl"), os.path.join(dst, "queries.jsonl"),
             lambda line: json.loads(line)["_id"] in kept)
        for qrels in ["test.tsv", "spans.tsv"]:
            copy(os.path.join(src, "qrels", qrels), os.path.join(dst, "qrels", qrels),
                 lambda line, first=[True]: first.pop() if first else line.split("\t")[0] in kept)
        with open(os.path.join(src, "SOURCE.txt"), encoding="utf-8") as f:
            origin = f.read().rstrip("\n")
        with open(os.path.join(dst, "SOURCE.txt"), "w", encoding="utf-8") as f:
            f.write(origin + "\nSample (tools/make_samples.py): every document, the 200 questions k * 1190 // 200"
                    " (k = 0..199) in file order, their judgments and answer spans.\n")


def copy(src, dst, keep):
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8", newline="\n") as g:
        for line in f:
            if line.strip() and keep(line):
                g.write(line if line.endswith("\n") else line + "\n")


if __name__ == "__main__":
    main()
