package dev.tenbin.index.search;

import dev.tenbin.index.multivector.TokenVectors;

/** A late-interaction (MaxSim) query: its token vectors. */
public record MultiVectorQuery(TokenVectors tokens) implements Query {}
