package dev.tenbin.eval.plan;

import dev.tenbin.eval.store.CellKey;
import java.util.Map;

/**
 * A cell of a job's plan, before it runs.
 *
 * @param key what it evaluates
 * @param fingerprint SHA-256 over everything that determines its result ({@link CellFingerprint})
 * @param versions the resolved versions stored with its result
 * @param facts model facts stored with its result (dimension, parameters)
 */
public record PlannedCell(
    CellKey key, String fingerprint, Map<String, String> versions, Map<String, Double> facts) {}
