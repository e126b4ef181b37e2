package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.SystemRef;
import java.util.Comparator;

/**
 * A leaderboard row: one system (family and model) in one efficiency variant and mode.
 *
 * @param system the system, as its cells name it
 * @param variant "base", "int8", ...; "base" is the reference of its system
 * @param mode the {@linkplain dev.tenbin.eval.result.RankingMode#wireName() wire name} of the mode,
 *     "retrieval", "rerank", ... (sorted as text)
 */
public record RowKey(SystemRef system, String variant, String mode) {
  /** The reference variant of every system. */
  public static final String BASE = "base";

  /** Display order: system, variant (base first), mode. */
  public static final Comparator<RowKey> ORDER =
      Comparator.comparing((RowKey k) -> k.system().name())
          .thenComparing(k -> !k.isBase())
          .thenComparing(RowKey::variant)
          .thenComparing(RowKey::mode);

  /** The row of a cell. */
  public static RowKey of(CellKey key) {
    return new RowKey(key.system(), key.variant(), key.mode().wireName());
  }

  public boolean isBase() {
    return variant.equals(BASE);
  }

  /** The base row of the same system and mode. */
  public RowKey base() {
    return new RowKey(system, BASE, mode);
  }

  /** A stable id, "system/variant/mode". */
  public String id() {
    return system.name() + "/" + variant + "/" + mode;
  }
}
