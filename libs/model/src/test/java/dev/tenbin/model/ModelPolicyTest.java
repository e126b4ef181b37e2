package dev.tenbin.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.PermissionDeniedException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelPolicyTest {
  private static final ModelPolicy.Source BUILTIN = ModelPolicy.Source.BUILTIN;
  private static final ModelPolicy.Source LOCAL = ModelPolicy.Source.LOCAL;
  private static final ModelPolicy.Source HUB = ModelPolicy.Source.HUB;

  @Test
  void theNetworkDefaultAllowsBuiltInAndLocalModelsButNoHubDownload() {
    ModelPolicy policy = ModelPolicy.of(List.of(), 600);
    assertThat(policy.allow()).containsExactly("builtin:*", "local:*");
    assertThat(policy.idleUnload()).isEqualTo(Duration.ofMinutes(10));
    assertThat(policy.allows(BUILTIN, "bge-small-en-v1.5")).isTrue();
    assertThat(policy.allows(LOCAL, "my-model")).isTrue();
    assertThat(policy.allows(HUB, "hub:BAAI/bge-m3@main")).isFalse();
  }

  @Test
  void barePatternsMatchIdsOfBuiltInAndLocalModelsOnly() {
    ModelPolicy policy = ModelPolicy.of(List.of("bge-*,E5-SMALL-V2"), 0);
    assertThat(policy.allows(BUILTIN, "bge-small-en-v1.5")).isTrue();
    assertThat(policy.allows(LOCAL, "bge-finetuned")).isTrue();
    assertThat(policy.allows(BUILTIN, "e5-small-v2")).as("case-insensitive").isTrue();
    assertThat(policy.allows(BUILTIN, "all-minilm-l6-v2")).isFalse();
    assertThat(ModelPolicy.of(List.of("*"), 0).allows(HUB, "hub:bge/x@main"))
        .as("* never means hub")
        .isFalse();
  }

  @Test
  void sourcedPatternsSelectBySourceAndHubPatternsByRepository() {
    ModelPolicy policy = ModelPolicy.of(List.of("local:*", "hub:BAAI/*", "builtin:e5-?mall-v2"), 0);
    assertThat(policy.allows(LOCAL, "anything")).isTrue();
    assertThat(policy.allows(BUILTIN, "bge-small-en-v1.5")).isFalse();
    assertThat(policy.allows(BUILTIN, "e5-small-v2")).isTrue();
    assertThat(policy.allows(HUB, "hub:BAAI/bge-m3@5617a9f61b028005a4858fdac845db406aefb181"))
        .isTrue();
    assertThat(policy.allows(HUB, "hub:evil/BAAI@main")).isFalse();
    assertThat(policy.allows(HUB, "hub:BAAI.x/y@main")).as("a dot is a literal").isFalse();
  }

  @Test
  void aDisallowedModelIsPermissionDeniedNamingTheField() {
    ModelPolicy policy = ModelPolicy.of(List.of(), 0);
    assertThatThrownBy(() -> policy.check(HUB, "hub:acme/model@main", "model_id"))
        .isInstanceOfSatisfying(
            PermissionDeniedException.class,
            e -> {
              assertThat(e.field()).isEqualTo("model_id");
              assertThat(e.getMessage()).contains("hub:acme/model@main").contains("hub: pattern");
            });
  }

  @Test
  void emptyPatternsAndNegativeIdleTimesAreRefused() {
    assertThatThrownBy(() -> new ModelPolicy(List.of(), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ModelPolicy(List.of(" "), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ModelPolicy.of(List.of(), -1))
        .hasMessageContaining("--model-idle-seconds");
  }
}
