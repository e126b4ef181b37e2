package dev.tenbin.model.card;

/** How per-token hidden states become one vector. */
public enum Pooling {
  /** The first token's ([CLS]) hidden state. */
  CLS,
  /** Mean over the tokens the attention mask keeps. */
  MEAN,
  /** The last kept token's hidden state (decoder-style embedders). */
  LAST_TOKEN
}
