package dev.tenbin.encoder.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.model.card.DecoderSettings;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.card.OutputKind;
import dev.tenbin.model.card.PaddingSide;
import dev.tenbin.model.card.Pooling;
import dev.tenbin.proto.encoder.v1.DecoderInputs;
import java.util.List;
import org.junit.jupiter.api.Test;

/** GetModelInfo and ListModels tell a client how a decoder card wants its inputs. */
class ModelCardProtoTest {
  private static ModelCard card(DecoderSettings decoder) {
    return new ModelCard(
        "qwen-like",
        "rev",
        "dir:/models/qwen-like",
        "model.onnx",
        "tokenizer.json",
        Pooling.LAST_TOKEN,
        true,
        1024,
        List.of(),
        8192,
        "",
        "",
        OutputKind.DENSE,
        0,
        0,
        "",
        decoder);
  }

  @Test
  void aDecoderCardReportsItsPaddingSideEosTokenTemplatesAndTask() {
    DecoderSettings decoder =
        new DecoderSettings(
            PaddingSide.LEFT,
            "<|endoftext|>",
            "Instruct: {task}\nQuery:{text}",
            "",
            "Given a web search query, retrieve relevant passages that answer the query");

    DecoderInputs inputs = ProtoConversions.card(card(decoder), "fp16").getDecoder();

    assertThat(inputs.getPaddingSide())
        .isEqualTo(dev.tenbin.proto.encoder.v1.PaddingSide.PADDING_SIDE_LEFT);
    assertThat(inputs.getEosToken()).isEqualTo("<|endoftext|>");
    assertThat(inputs.getQueryTemplate()).isEqualTo("Instruct: {task}\nQuery:{text}");
    assertThat(inputs.getDocumentTemplate()).isEmpty();
    assertThat(inputs.getTask()).startsWith("Given a web search query");
  }

  @Test
  void aBertStyleCardReportsRightPaddingAndNothingElse() {
    DecoderInputs inputs = ProtoConversions.card(card(null), "fp32").getDecoder();

    assertThat(inputs.getPaddingSide())
        .isEqualTo(dev.tenbin.proto.encoder.v1.PaddingSide.PADDING_SIDE_RIGHT);
    assertThat(inputs.getEosToken()).isEmpty();
    assertThat(inputs.getQueryTemplate()).isEmpty();
    assertThat(inputs.getTask()).isEmpty();
  }
}
