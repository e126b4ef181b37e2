package dev.tenbin.model.card;

/** The two files a model runs from, loaded into memory. */
public record ModelFiles(ModelCard card, byte[] onnx, byte[] tokenizerJson) {}
