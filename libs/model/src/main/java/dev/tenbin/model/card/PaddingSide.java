package dev.tenbin.model.card;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.tenbin.core.InvalidInputException;
import java.util.Locale;

/**
 * Which end of a batch's shorter inputs the padding goes to. BERT-style encoders pad on the right;
 * last-token decoder embedders (Qwen3-Embedding) are trained with left padding, so that the last
 * slot of every row is a real token.
 */
public enum PaddingSide {
  RIGHT,
  LEFT;

  /** "left" / "right" in card.json (case-insensitive). */
  @JsonCreator
  public static PaddingSide parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(
          "card.decoder.padding_side", "padding_side must be left or right, got " + value);
    }
  }

  @JsonValue
  public String json() {
    return name().toLowerCase(Locale.ROOT);
  }
}
