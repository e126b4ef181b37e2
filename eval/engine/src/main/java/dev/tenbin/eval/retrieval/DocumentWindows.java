package dev.tenbin.eval.retrieval;

import dev.tenbin.model.tokenizer.LengthTokenizer;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A corpus cut into windows for a {@link Chunking}: each window a document of its own ({@code
 * w<n>}, the source's title kept), retrieved like any corpus, then folded back into one ranking of
 * source documents, each scored by its best window (MaxP; FirstP has one window per document). Ties
 * between documents are broken by document id ascending, the index's policy. The folded result
 * records the windows per document ("vectors_per_document"), so that the bytes a variant keeps per
 * document count every window.
 *
 * @param windows the windowed corpus, windows of a document consecutive and in text order
 * @param sourceOf window id to source document id
 * @param mostWindows the largest number of windows of one document
 */
public record DocumentWindows(
    List<CorpusDocument> windows, Map<String, String> sourceOf, int mostWindows) {

  /** Cuts every document of {@code data} with {@code tokenizer}, the model's own. */
  public static DocumentWindows cut(
      BeirDataset data, Chunking chunking, LengthTokenizer tokenizer) {
    List<CorpusDocument> windows = new ArrayList<>();
    Map<String, String> sourceOf = new HashMap<>();
    int most = 1;
    for (CorpusDocument doc : data.corpus()) {
      List<String> texts = texts(doc.text(), chunking, tokenizer);
      most = Math.max(most, texts.size());
      for (String text : texts) {
        String id = "w" + windows.size();
        windows.add(new CorpusDocument(id, doc.title(), text));
        sourceOf.put(id, doc.id());
      }
    }
    return new DocumentWindows(windows, sourceOf, most);
  }

  /** The window texts of one document: substrings of {@code text}, in order. */
  static List<String> texts(String text, Chunking chunking, LengthTokenizer tokenizer) {
    int[][] spans = tokenizer.tokenSpans(text);
    int n = spans.length;
    if (n <= chunking.window()) {
      return List.of(text);
    }
    List<String> out = new ArrayList<>();
    for (int start = 0; start < n; start += chunking.stride()) {
      int end = Math.min(n, start + chunking.window());
      int from = text.offsetByCodePoints(0, spans[start][0]);
      int to = text.offsetByCodePoints(0, spans[end - 1][1]);
      out.add(text.substring(from, to));
      if (end == n || chunking.mode() == Chunking.Mode.FIRSTP) {
        break;
      }
    }
    return out;
  }

  /** The windowed corpus as a dataset with the same queries and judgments. */
  public BeirDataset dataset(BeirDataset data) {
    return new BeirDataset(
        data.name(),
        data.directory(),
        dev.tenbin.scoring.beir.Corpus.of(windows),
        data.queries(),
        data.qrels(),
        data.spans(),
        data.evaluatedQueryIds(),
        data.warnings());
  }

  /** The search depth over windows that still yields {@code topK} distinct documents. */
  public int depth(int topK) {
    return (int) Math.min(Math.min(windows.size(), 10_000L), (long) topK * mostWindows);
  }

  /** {@code result}'s window rankings folded into document rankings of at most {@code topK}. */
  public RetrievalResult fold(RetrievalResult result, int topK) {
    Map<String, List<ScoredDoc>> rankings = new LinkedHashMap<>();
    for (Map.Entry<String, List<ScoredDoc>> entry : result.rankings().entrySet()) {
      Map<String, Double> best = new LinkedHashMap<>();
      for (ScoredDoc hit : entry.getValue()) {
        best.merge(sourceOf.get(hit.docId()), hit.score(), Math::max);
      }
      List<ScoredDoc> docs = new ArrayList<>();
      best.forEach((doc, score) -> docs.add(new ScoredDoc(doc, score)));
      docs.sort(
          java.util.Comparator.comparingDouble(ScoredDoc::score)
              .reversed()
              .thenComparing(ScoredDoc::docId));
      rankings.put(entry.getKey(), List.copyOf(docs.subList(0, Math.min(topK, docs.size()))));
    }
    return new RetrievalResult(
        rankings,
        result.indexNanos(),
        result.searchNanos(),
        result.documents(),
        result.documentEncodeNanos(),
        result.queryEncodeNanos(),
        result.diagnostics().withVectorsPerDocument(vectorsPerDocument()),
        result.variantIndexNanos());
  }

  /** Windows per source document, the mean over the corpus (1 when nothing was cut). */
  public double vectorsPerDocument() {
    long documents = sourceOf.values().stream().distinct().count();
    return documents == 0 ? 1 : (double) windows.size() / documents;
  }
}
