package dev.tenbin.eval.plan;

import dev.tenbin.eval.store.CellKey;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What determines the result of a cell (or of a candidate set): named values — text, a whole model
 * identity, a depth, the cell key — hashed into its fingerprint by {@link CellFingerprint}.
 * Immutable; {@code with} returns a copy with one more field.
 */
public final class CellIdentity {
  private final Map<String, Object> fields;

  private CellIdentity(Map<String, Object> fields) {
    this.fields = Collections.unmodifiableMap(fields);
  }

  /** An identity without fields. */
  public static CellIdentity empty() {
    return new CellIdentity(new LinkedHashMap<>());
  }

  public CellIdentity with(String name, String value) {
    return put(name, value);
  }

  /** A field whose value is a map of names, e.g. a model's identity (id, revision, dtype, ...). */
  public CellIdentity with(String name, Map<String, String> value) {
    return put(name, Map.copyOf(value));
  }

  public CellIdentity with(String name, int value) {
    return put(name, value);
  }

  /** The key's {@linkplain CellKey#identityFields identity fields} under {@code name}. */
  public CellIdentity with(String name, CellKey key) {
    return put(name, key.identityFields());
  }

  /** SHA-256 over the canonical JSON of the fields (see {@link CellFingerprint}). */
  public String fingerprint() {
    return CellFingerprint.of(fields);
  }

  private CellIdentity put(String name, Object value) {
    Map<String, Object> copy = new LinkedHashMap<>(fields);
    copy.put(name, value);
    return new CellIdentity(copy);
  }
}
