package dev.tenbin.eval.export;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.tenbin.eval.store.CellRecord;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code export mteb} against mteb's own result format (src/test/resources/mteb: JSON Schemas
 * written from mteb 2.20's {@code TaskResult} and {@code ModelMeta}, and files mteb itself wrote,
 * which the schemas must accept first).
 */
class MtebSchemaTest {
  private static final JsonMapper JSON =
      JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
  private static final JsonSchema TASK_RESULT = schema("task_result.schema.json");
  private static final JsonSchema MODEL_META = schema("model_meta.schema.json");

  private static JsonSchema schema(String name) {
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(read(name));
  }

  private static JsonNode read(String name) {
    try (InputStream in = MtebSchemaTest.class.getResourceAsStream("/mteb/" + name)) {
      return JSON.readTree(in);
    } catch (IOException e) {
      throw new IllegalStateException(name, e);
    }
  }

  private static CellRecord denseCell() {
    return cell("NanoBEIR-en", "NanoSciFact", "dense:bge-small-en-v1.5", "int8", 0.71)
        .fact("dimension", 384)
        .fact("parameters", 33_360_000)
        .build();
  }

  @Test
  void theSchemasAcceptTheFilesMtebItselfWrote() {
    assertThat(TASK_RESULT.validate(read("mteb-NanoArguAnaRetrieval.json"))).isEmpty();
    assertThat(MODEL_META.validate(read("mteb-model_meta.json"))).isEmpty();
  }

  @Test
  void theSchemasRefuseWhatMtebRefuses() {
    ObjectNode result = (ObjectNode) read("mteb-NanoArguAnaRetrieval.json");
    // packaging.Version("tenbin 0.1.0-SNAPSHOT") raises InvalidVersion
    assertThat(TASK_RESULT.validate(result.deepCopy().put("mteb_version", "tenbin 0.1.0-SNAPSHOT")))
        .isNotEmpty();
    assertThat(TASK_RESULT.validate(result.deepCopy().put("mteb_version", "2.20.0.dev3")))
        .isEmpty();
    ObjectNode withoutSubset = result.deepCopy();
    ((ObjectNode) withoutSubset.get("scores").get("train").get(0)).remove("hf_subset");
    assertThat(TASK_RESULT.validate(withoutSubset)).isNotEmpty();
    assertThat(TASK_RESULT.validate(result.deepCopy().put("tenbin_fingerprint", "x"))).isNotEmpty();
    ObjectNode meta = (ObjectNode) read("mteb-model_meta.json");
    assertThat(MODEL_META.validate(meta.deepCopy().put("name", "bge-small-en-v1.5"))).isNotEmpty();
    assertThat(MODEL_META.validate(meta.deepCopy().put("similarity_fn_name", "l2"))).isNotEmpty();
  }

  @Test
  void anExportedCellAndItsModelMetaAreValidMtebFiles() {
    CellRecord cell = denseCell();
    ObjectNode result = MtebExport.toJson(cell);
    Set<ValidationMessage> problems = TASK_RESULT.validate(result);
    assertThat(problems).as(result.toPrettyString()).isEmpty();
    assertThat(result.get("mteb_version").isNull()).isTrue();
    ObjectNode meta = MtebExport.modelMeta(cell);
    assertThat(MODEL_META.validate(meta)).as(meta.toPrettyString()).isEmpty();
    // the variant is an experiment of the model, as mteb 2.x keeps one
    assertThat(meta.get("name").asText()).isEqualTo("BAAI/bge-small-en-v1.5");
    assertThat(meta.get("experiment_kwargs").toString()).isEqualTo("{\"variant\":\"int8\"}");
    assertThat(meta.get("embed_dim").asInt()).isEqualTo(384);
    assertThat(meta.get("n_parameters").asLong()).isEqualTo(33_360_000L);
    assertThat(MtebExport.relativePath(cell).toString())
        .isEqualTo(
            "BAAI__bge-small-en-v1.5/no_revision_available/experiments/variant_int8/NanoSciFact.json");
    CellRecord base =
        cell("NanoBEIR-en", "NanoSciFact", "dense:bge-small-en-v1.5", "base", 0.7).build();
    assertThat(MtebExport.modelMeta(base).get("experiment_kwargs").isNull()).isTrue();
    assertThat(MtebExport.relativePath(base).toString())
        .isEqualTo("BAAI__bge-small-en-v1.5/no_revision_available/NanoSciFact.json");
  }

  @Test
  void experimentNamesAreMtebsSerializationOfTheKeywords() {
    // mteb's _serialize_experiment_kwargs_to_name: key_value sorted by key, joined by "__"
    assertThat(MtebExport.experimentName(java.util.Map.of("variant", "truncate=256,int8")))
        .isEqualTo("variant_truncate=256,int8");
    assertThat(MtebExport.experimentName(java.util.Map.of("variant", "int8", "mode", "rerank")))
        .isEqualTo("mode_rerank__variant_int8");
    assertThat(MtebExport.experimentLabel(java.util.Map.of("variant", "int8", "mode", "rerank")))
        .isEqualTo("mode=rerank, variant=int8");
    // values lose mteb's invalid characters; past 200 characters the name is a hash
    assertThat(MtebExport.experimentName(java.util.Map.of("variant", "a/b:c")))
        .isEqualTo("variant_a_b_c");
    // hashlib.sha256(("variant_" + "x" * 200).encode()).hexdigest()[:16]
    assertThat(MtebExport.experimentName(java.util.Map.of("variant", "x".repeat(200))))
        .matches("exp_[0-9a-f]{16}");
    assertThat(MtebExport.experimentName(java.util.Map.of())).isNull();
  }

  @Test
  void theEvaluationTimeCountsEveryPhaseOnceFromTheCellsOwnTimings() {
    // Phases as a dense run stores them: index_ms already holds the documents' encode.
    java.util.SplittableRandom random = new java.util.SplittableRandom(3);
    double encode = 1_000 + random.nextInt(10_000);
    double index = encode + 1 + random.nextInt(2_000);
    double variant = random.nextInt(500);
    double queries = random.nextInt(300);
    double search = random.nextInt(900);
    CellRecord cell =
        cell("NanoBEIR-en", "NanoSciFact", "dense:bge-small-en-v1.5", "int8", 0.71)
            .timing("document_encode_ms", encode)
            .timing("index_ms", index)
            .timing("variant_index_ms", variant)
            .timing("query_encode_ms", queries)
            .timing("search_ms", search)
            .timing("per_query_search_us", 12_345)
            .build();
    double seconds = MtebExport.toJson(cell).get("evaluation_time").asDouble();
    double phases = 0;
    for (String phase :
        java.util.List.of("index_ms", "variant_index_ms", "query_encode_ms", "search_ms")) {
      phases += cell.timings().get(phase);
    }
    assertThat(seconds).isCloseTo(phases / 1000, org.assertj.core.api.Assertions.within(1e-9));
    assertThat(seconds * 1000).isLessThan(phases + cell.timings().get("document_encode_ms"));
  }

  @Test
  void scoresCarryOnlyTheNamesOfMtebsRetrievalEvaluator() {
    JsonNode scores = MtebExport.toJson(denseCell()).get("scores").get("test").get(0);
    Iterator<String> names = scores.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      assertThat(name)
          .matches(
              "(ndcg|map|recall|precision|mrr|hit_rate)_at_[0-9]+|main_score|hf_subset|languages");
    }
    assertThat(scores.get("main_score").asDouble()).isEqualTo(0.71);
    assertThat(MtebExport.mtebName("accuracy@10")).isEqualTo("hit_rate_at_10");
    assertThat(MtebExport.mtebName("ndcg@10")).isEqualTo("ndcg_at_10");
    assertThat(MtebExport.mtebName("bias@10")).isNull();
    assertThat(MtebExport.mtebName("ndcg")).isNull();
  }

  @Test
  void bm25AndUnknownModelsAreNamedUnderTenbin() {
    CellRecord bm25 = cell("b", "t", "bm25", "base", 0.5).build();
    assertThat(MtebExport.modelName(bm25)).isEqualTo("tenbin/bm25");
    ObjectNode meta = MtebExport.modelMeta(bm25);
    assertThat(MODEL_META.validate(meta)).isEmpty();
    assertThat(meta.get("model_type").get(0).asText()).isEqualTo("sparse");
    assertThat(meta.get("framework")).isEmpty();
    CellRecord reranked = cell("b", "t", "dense:my-model", "base", 0.5).mode("rerank").build();
    assertThat(MtebExport.modelName(reranked)).isEqualTo("tenbin/dense-my-model");
    assertThat(MtebExport.experimentKwargs(reranked))
        .containsExactly(java.util.Map.entry("mode", "rerank"));
    assertThat(MtebExport.modelMeta(reranked).get("model_type").get(0).asText())
        .isEqualTo("cross-encoder");
  }
}
