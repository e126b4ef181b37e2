package dev.tenbin.bench.bm25;

import dev.tenbin.bench.index.Bm25CoreBenchmark;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import java.util.ArrayList;
import java.util.List;

/**
 * A BEIR dataset as the BM25 benches feed it: the evaluated queries' texts, and the corpus for the
 * in-process core and for a gRPC ingest, in corpus order.
 */
record BenchInputs(
    List<String> queries, List<Bm25CoreBenchmark.Document> coreDocs, List<Document> protoDocs) {
  static BenchInputs of(BeirDataset dataset) {
    List<String> queries = new ArrayList<>();
    for (String id : dataset.evaluatedQueryIds()) {
      queries.add(dataset.queries().get(id));
    }
    List<Bm25CoreBenchmark.Document> coreDocs = new ArrayList<>();
    List<Document> protoDocs = new ArrayList<>();
    for (CorpusDocument doc : dataset.corpus()) {
      coreDocs.add(new Bm25CoreBenchmark.Document(doc.id(), doc.title(), doc.text()));
      protoDocs.add(
          Document.newBuilder().setId(doc.id()).setTitle(doc.title()).setText(doc.text()).build());
    }
    return new BenchInputs(queries, coreDocs, protoDocs);
  }
}
