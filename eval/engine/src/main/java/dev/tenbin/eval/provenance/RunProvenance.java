package dev.tenbin.eval.provenance;

import java.util.Map;

/**
 * Where a run of {@code tenbin eval} comes from, as its job cell records it.
 *
 * @param fingerprint the cell's fingerprint (the same as {@code tenbin run} gives the same cell)
 * @param versions the resolved versions stored with the cell (dataset, model, libraries, Tenbin)
 */
public record RunProvenance(String fingerprint, Map<String, String> versions) {}
