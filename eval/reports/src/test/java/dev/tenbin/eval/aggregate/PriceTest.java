package dev.tenbin.eval.aggregate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.job.Price;
import dev.tenbin.eval.testing.SyntheticCells;
import java.util.List;
import org.junit.jupiter.api.Test;

class PriceTest {
  private static RowFacts timed(String device) {
    // 10 ms per query (encode + search); 4,000 ms to encode and index 1,000 documents
    return RowFacts.of(
        List.of(
            SyntheticCells.cell("b", "t", "dense:m", "base", 0.5)
                .timing("query_encode_latency_us", 9_500)
                .timing("search_latency_us", 500)
                .timing("index_ms", 4_000)
                .timing("document_encode_ms", 3_900)
                .fact("num_documents", 1_000)
                .version("onnxruntime_device", device)
                .build()));
  }

  @Test
  void measuredTimesArePricedByTheHourOfTheirDevice() {
    Price price = Price.parse("--price", "cpu_hour=0.36, gpu_hour=3.6");
    RowFacts cpu = timed("cpu/amd64");
    assertThat(cpu.indexMsPerDocument()).isEqualTo(4.0);
    assertThat(cpu.gpu()).isFalse();
    // 1,000 queries x 10 ms = 10 s = 1/360 h at 0.36 per hour
    assertThat(cpu.costPer1kQueries(price)).isCloseTo(0.001, within(1e-12));
    // 1,000,000 documents x 4 ms = 4,000 s = 10/9 h at 0.36
    assertThat(cpu.costPer1mDocuments(price)).isCloseTo(0.4, within(1e-12));
    RowFacts gpu = timed("cuda:0");
    assertThat(gpu.gpu()).isTrue();
    assertThat(gpu.costPer1kQueries(price)).isCloseTo(0.01, within(1e-12));
  }

  @Test
  void aDeviceWithoutAPriceOrARowWithoutTimesHasNoCost() {
    Price cpuOnly = Price.parse("--price", "cpu_hour=1");
    assertThat(cpuOnly.gpuHour()).isZero();
    assertThat(timed("cuda:0").costPer1kQueries(cpuOnly)).isNull();
    RowFacts untimed =
        RowFacts.of(List.of(SyntheticCells.cell("b", "t", "bm25", "base", 0.5).build()));
    assertThat(untimed.costPer1kQueries(cpuOnly)).isNull();
    assertThat(untimed.costPer1mDocuments(cpuOnly)).isNull();
  }

  @Test
  void aMalformedPriceNamesTheOption() {
    for (String bad : List.of("cpu=1", "cpu_hour=-1", "cpu_hour=x", "", "gpu_hour=NaN")) {
      assertThatThrownBy(() -> Price.parse("--price", bad))
          .as(bad)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("--price must be cpu_hour=PRICE,gpu_hour=PRICE");
    }
  }

  @Test
  void aJobSpecNamesItsPriceAndTheJobFolderKeepsIt(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path job) throws Exception {
    String spec =
        "name: priced\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n"
            + "price: {cpu_hour: 0.36, gpu_hour: 3.6}\n";
    var parsed = dev.tenbin.eval.job.JobSpec.parse(spec, job.resolve("job.yaml"));
    java.nio.file.Files.writeString(job.resolve("job.yaml"), parsed.yaml());
    assertThat(Price.ofJobFolder(job)).isEqualTo(new Price(0.36, 3.6));
    assertThat(
            Price.fromYaml(
                new com.fasterxml.jackson.databind.ObjectMapper().valueToTree("cpu_hour=1")))
        .isEqualTo(new Price(1, 0));
    assertThatThrownBy(
            () ->
                dev.tenbin.eval.job.JobSpec.parse(
                    spec.replace("cpu_hour: 0.36", "cpu_hour: cheap"), job.resolve("job.yaml")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("price");
    assertThat(Price.ofJobFolder(job.resolve("missing"))).isNull();
  }

  @Test
  void eachVariantPaysItsOwnIndexingBesideTheSharedEncodeAndCellsWithoutItTheSharedOnly() {
    Price price = Price.parse("--price", "cpu_hour=0.36");
    List<RowFacts> rows = new java.util.ArrayList<>();
    // one encode and ingest shared by the variants, then what each one's index built
    double[] own = {40, 900, 250};
    String[] variants = {"base", "int8", "binary"};
    for (int v = 0; v < variants.length; v++) {
      rows.add(
          RowFacts.of(
              List.of(
                  SyntheticCells.cell("b", "t", "dense:m", variants[v], 0.5)
                      .timing("index_ms", 4_000)
                      .timing("document_encode_ms", 3_900)
                      .timing("variant_index_ms", own[v])
                      .fact("num_documents", 1_000)
                      .build())));
    }
    for (int v = 0; v < variants.length; v++) {
      assertThat(rows.get(v).indexMsPerDocument()).isEqualTo((4_000 + own[v]) / 1_000);
    }
    assertThat(rows.stream().map(r -> r.costPer1mDocuments(price)).distinct()).hasSize(3);
    // a cell stored before variant_index_ms: its shared indexing, as before
    RowFacts older =
        RowFacts.of(
            List.of(
                SyntheticCells.cell("b", "t", "dense:m", "int8", 0.5)
                    .timing("index_ms", 4_000)
                    .timing("document_encode_ms", 3_900)
                    .fact("num_documents", 1_000)
                    .build()));
    assertThat(older.indexMsPerDocument()).isEqualTo(4.0);
  }
}
