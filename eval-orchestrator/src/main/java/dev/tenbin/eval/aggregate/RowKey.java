package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.CellKey;
import java.util.Comparator;

/**
 * A leaderboard row: one system (family and model) in one efficiency variant and mode.
 *
 * @param family the retrieval family, e.g. "dense" or "bm25"
 * @param model the model id ("bm25" for BM25)
 * @param variant "base", "int8", ...; "base" is the reference of its system
 * @param mode the {@linkplain dev.tenbin.eval.RunMode#wireName() wire name} of the mode,
 *     "retrieval", "rerank", ... (sorted as text)
 */
public record RowKey(String family, String model, String variant, String mode) {
  /** The reference variant of every system. */
  public static final String BASE = "base";

  /** Display order: system, variant (base first), mode. */
  public static final Comparator<RowKey> ORDER =
      Comparator.comparing(RowKey::system)
          .thenComparing(k -> !k.isBase())
          .thenComparing(RowKey::variant)
          .thenComparing(RowKey::mode);

  /** The row of a cell. */
  public static RowKey of(CellKey key) {
    return new RowKey(key.family(), key.model(), key.variant(), key.mode().wireName());
  }

  /** "family:model", or "bm25", as {@link CellKey#system()}. */
  public String system() {
    return CellKey.system(family, model);
  }

  public boolean isBase() {
    return variant.equals(BASE);
  }

  /** The base row of the same system and mode. */
  public RowKey base() {
    return new RowKey(family, model, BASE, mode);
  }

  /** A stable id, "system/variant/mode". */
  public String id() {
    return system() + "/" + variant + "/" + mode;
  }
}
