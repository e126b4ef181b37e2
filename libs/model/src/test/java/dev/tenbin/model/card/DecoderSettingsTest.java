package dev.tenbin.model.card;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code decoder} object of card.json: snake_case, defaults, templates and their checks. */
class DecoderSettingsTest {
  @TempDir Path tmp;

  private static ModelCard card(String queryPrompt, DecoderSettings decoder) {
    return new ModelCard(
        "m",
        "",
        "",
        null,
        null,
        Pooling.LAST_TOKEN,
        true,
        8,
        List.of(),
        8192,
        queryPrompt,
        "",
        OutputKind.DENSE,
        0,
        0,
        "",
        decoder);
  }

  @Test
  void aQwen3CardReadsFromSnakeCaseJson() throws Exception {
    Files.writeString(
        tmp.resolve("card.json"),
        """
        {"id":"qwen3-embedding-0.6b","pooling":"LAST_TOKEN","normalize":true,"dimension":1024,
         "max_length":8192,
         "decoder":{"padding_side":"left","eos_token":"<|endoftext|>",
                    "query_template":"Instruct: {task}\\nQuery:{text}",
                    "task":"Given a web search query, retrieve relevant passages that answer the query"}}
        """,
        StandardCharsets.UTF_8);
    ModelCard card = LocalModelDirectory.readCard(tmp);
    DecoderSettings decoder = card.decoderSettings();
    assertThat(decoder.paddingSide()).isEqualTo(PaddingSide.LEFT);
    assertThat(decoder.eosToken()).isEqualTo("<|endoftext|>");
    assertThat(card.promptedText("what is rope?", true))
        .isEqualTo(
            "Instruct: Given a web search query, retrieve relevant passages that answer the query"
                + "\nQuery:what is rope?");
    assertThat(card.promptedText("a passage", false)).isEqualTo("a passage");
    // Written back and read again: the same card.
    Path copy = Files.createDirectories(tmp.resolve("copy"));
    LocalModelDirectory.writeCard(copy, card);
    assertThat(LocalModelDirectory.readCard(copy)).isEqualTo(card);
    assertThat(Files.readString(copy.resolve("card.json")))
        .containsPattern("\"padding_side\"\\s*:\\s*\"left\"");
  }

  @Test
  void aCardWithoutDecoderKeepsTheEncoderDefaultsAndItsJson() throws Exception {
    ModelCard card = card("query: ", null);
    assertThat(card.decoder()).isNull();
    assertThat(card.decoderSettings()).isEqualTo(DecoderSettings.DEFAULT);
    assertThat(card.decoderSettings().paddingSide()).isEqualTo(PaddingSide.RIGHT);
    assertThat(card.promptedText("x", true)).isEqualTo("query: x");
    assertThat(card.promptedText("x", false)).isEqualTo("x");
    assertThat(card(" q", DecoderSettings.DEFAULT).decoder())
        .as("defaults stored as null")
        .isNull();
    LocalModelDirectory.writeCard(tmp, card);
    assertThat(Files.readString(tmp.resolve("card.json"))).doesNotContain("decoder");
  }

  @Test
  void aTextContainingTheTaskPlaceholderIsNotExpanded() {
    DecoderSettings decoder = new DecoderSettings(null, null, "{task}: {text}", null, "find");
    assertThat(decoder.apply(decoder.queryTemplate(), "about {task}"))
        .isEqualTo("find: about {task}");
  }

  @Test
  void badTemplatesAndPaddingSidesAreErrorsNamingTheField() {
    assertThatThrownBy(() -> new DecoderSettings(null, null, "Query:", null, null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("{text}");
    assertThatThrownBy(() -> new DecoderSettings(null, null, "{task} {text}", null, null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("card.decoder.task");
    assertThatThrownBy(() -> card("query: ", new DecoderSettings(null, null, "{text}", null, null)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("keep one");
    assertThatThrownBy(() -> PaddingSide.parse("middle"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("padding_side");
  }
}
