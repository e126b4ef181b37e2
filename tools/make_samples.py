#!/usr/bin/env python3
"""Writes the bundled sample collections under samples/beir/ from XQuAD in BEIR layout.

Usage: tools/make_samples.py XQUAD_DIR [OUT_DIR]
  XQUAD_DIR holds xquad-en, xquad-de and xquad-en-long (BEIR folders with qrels/spans.tsv, converted from
  google-deepmind/xquad at commit 7d30520c717524000f0d9d2f9c10a069acd9d285, CC BY-SA 4.0).
  OUT_DIR defaults to samples/beir.

Each sample keeps 20 of the 48 articles (articles k * 48 // 20, k = 0..19, in the order of xquad-en-long's
ids), so every corpus file stays under 100 KB: their 100 paragraphs in xquad-en and xquad-de, the 20 whole
articles in xquad-en-long. Of the questions on those articles it keeps 200, the same in every language:
questions k * n // 200 (k = 0..199) of the n in file order. The judgments and answer spans of those
questions are kept, nothing else changes, and the output is byte-for-byte the same on every run.
"""
import json
import os
import sys

SAMPLES = ["xquad-en", "xquad-de", "xquad-en-long"]
ARTICLES = 20
QUESTIONS = 200


def main():
    source = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "samples", "beir")
    paragraph_of = judged(os.path.join(source, "xquad-en", "qrels", "test.tsv"))
    article_of = judged(os.path.join(source, "xquad-en-long", "qrels", "test.tsv"))
    articles = sorted(set(article_of.values()))
    kept_articles = {articles[k * len(articles) // ARTICLES] for k in range(ARTICLES)}
    kept_paragraphs = {paragraph_of[q] for q in paragraph_of if article_of[q] in kept_articles}
    with open(os.path.join(source, "xquad-en", "queries.jsonl"), encoding="utf-8") as f:
        ids = [json.loads(line)["_id"] for line in f if line.strip()]
    ids = [q for q in ids if article_of[q] in kept_articles]
    kept = {ids[k * len(ids) // QUESTIONS] for k in range(QUESTIONS)}
    for name in SAMPLES:
        src = os.path.join(source, name)
        dst = os.path.join(out, name)
        documents = kept_articles if name.endswith("-long") else kept_paragraphs
        os.makedirs(os.path.join(dst, "qrels"), exist_ok=True)
        copy(os.path.join(src, "corpus.jsonl"), os.path.join(dst, "corpus.jsonl"),
             lambda line: json.loads(line)["_id"] in documents)
        copy(os.path.join(src, "queries.jsonl"), os.path.join(dst, "queries.jsonl"),
             lambda line: json.loads(line)["_id"] in kept)
        for qrels in ["test.tsv", "spans.tsv"]:
            copy(os.path.join(src, "qrels", qrels), os.path.join(dst, "qrels", qrels),
                 lambda line, first=[True]: first.pop() if first else line.split("\t")[0] in kept)
        with open(os.path.join(src, "SOURCE.txt"), encoding="utf-8") as f:
            origin = f.read().rstrip("\n")
        with open(os.path.join(dst, "SOURCE.txt"), "w", encoding="utf-8") as f:
            f.write(origin + "\nSample (tools/make_samples.py): the 20 articles k * 48 // 20 (k = 0..19), their "
                    + ("whole texts" if name.endswith("-long") else "100 paragraphs")
                    + ", 200 of their questions (k * n // 200 in file order), their judgments and answer spans.\n")


def judged(path):
    """Maps each question of a qrels file to its one judged document."""
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    return {row[0]: row[1] for row in rows if row and row[0]}


def copy(src, dst, keep):
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8", newline="\n") as g:
        for line in f:
            if line.strip() and keep(line):
                g.write(line if line.endswith("\n") else line + "\n")


if __name__ == "__main__":
    main()
