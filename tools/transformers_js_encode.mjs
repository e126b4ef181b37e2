// Encodes texts with transformers.js (@huggingface/transformers on onnxruntime-node), the peer that
// tools/encoder_vs_transformers_js.py measures `tenbin bench encoder --throughput` against. Not a
// project dependency: the Python script installs the package into a scratch folder and runs this
// file from there.
//
// Usage: node transformers_js_encode.mjs MODEL_DIR TEXTS_JSONL POOLING THREADS BATCHES PASSES OUT_F32
//   MODEL_DIR    config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx
//   TEXTS_JSONL  one JSON string per line, prompts already applied
//   POOLING      cls or mean (vectors are L2-normalised, as Tenbin's cards say)
//   THREADS      ONNX Runtime intra-op threads
//   BATCHES      comma-separated batch sizes tried; texts are sorted by token count and cut into
//                batches of that size in that order (each padded to its longest), the usual way to
//                feed a feature-extraction pipeline fast
//   PASSES       timed passes per batch size after one warm-up pass; the fastest counts
//   OUT_F32      the vectors of the fastest batch size, float32 little-endian, in input order
// Prints one JSON object: docs/s per batch size, the best, and the versions used.
import fs from 'node:fs';
import path from 'node:path';
import { env, pipeline } from '@huggingface/transformers';

const [modelDir, textsFile, pooling, threadsArg, batchesArg, passesArg, outFile] =
  process.argv.slice(2);
if (!outFile) {
  console.error('usage: node transformers_js_encode.mjs MODEL_DIR TEXTS_JSONL POOLING THREADS BATCHES PASSES OUT_F32');
  process.exit(2);
}
const threads = Number(threadsArg);
const passes = Number(passesArg);
const batches = batchesArg.split(',').map(Number);

env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = path.dirname(path.resolve(modelDir)) + path.sep;
const modelName = path.basename(path.resolve(modelDir));

const texts = fs.readFileSync(textsFile, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
const extractor = await pipeline('feature-extraction', modelName, {
  dtype: 'fp32',
  device: 'cpu',
  session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
});

// Token counts with the pipeline's own tokenizer, for the length order, and before truncation:
// transformers.js truncates by cutting the ids at the model's maximum length, closing [SEP]
// included, where Hugging Face's tokenizers (and Tenbin) truncate the text and keep it, so the
// vectors of longer texts are not comparable.
const lengths = texts.map((t) => extractor.tokenizer(t, { truncation: true }).input_ids.dims[1]);
const fullLengths = texts.map((t) => extractor.tokenizer(t).input_ids.dims[1]);
const order = texts.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);

async function encodeAll(batch) {
  const vectors = new Array(texts.length);
  for (let from = 0; from < order.length; from += batch) {
    const ids = order.slice(from, from + batch);
    const output = await extractor(ids.map((i) => texts[i]), { pooling, normalize: true });
    const width = output.dims[1];
    for (let k = 0; k < ids.length; k++) {
      vectors[ids[k]] = output.data.slice(k * width, (k + 1) * width);
    }
  }
  return vectors;
}

const shapes = [];
let best = null;
let bestVectors = null;
for (const batch of batches) {
  await encodeAll(batch);
  let fastest = Infinity;
  let vectors = null;
  for (let pass = 0; pass < passes; pass++) {
    const start = process.hrtime.bigint();
    vectors = await encodeAll(batch);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    fastest = Math.min(fastest, seconds);
  }
  const shape = { batch_size: batch, docs_per_s: texts.length / fastest };
  shapes.push(shape);
  if (best === null || shape.docs_per_s > best.docs_per_s) {
    best = shape;
    bestVectors = vectors;
  }
}

const width = bestVectors[0].length;
const out = new Float32Array(texts.length * width);
bestVectors.forEach((v, i) => out.set(v, i * width));
fs.writeFileSync(outFile, Buffer.from(out.buffer));

// The installed versions, read from node_modules beside this script.
const version = (name) =>
  JSON.parse(
    fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), 'node_modules', name, 'package.json'), 'utf8'),
  ).version;
console.log(
  JSON.stringify({
    transformers_js: version('@huggingface/transformers'),
    onnxruntime_node: version('onnxruntime-node'),
    node: process.version,
    documents: texts.length,
    tokens: lengths.reduce((a, b) => a + b, 0),
    max_length: extractor.tokenizer.model_max_length,
    untruncated_lengths: fullLengths,
    intra_op_threads: threads,
    shapes,
    best_batch_size: best.batch_size,
    best_docs_per_s: best.docs_per_s,
  }),
);
