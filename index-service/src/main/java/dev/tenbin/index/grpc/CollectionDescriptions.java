package dev.tenbin.index.grpc;

import dev.tenbin.index.collection.CollectionSpec;
import dev.tenbin.index.collection.CollectionState;
import dev.tenbin.index.collection.CollectionStats;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.Quantization;
import dev.tenbin.proto.index.v1.Bm25Parameters;
import dev.tenbin.proto.index.v1.CollectionDescription;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.Int8Calibration;
import dev.tenbin.proto.index.v1.VariantFootprint;
import java.util.Locale;

/** A collection's {@link CollectionStats} as a {@code CollectionDescription}. */
final class CollectionDescriptions {
  private CollectionDescriptions() {}

  static CollectionDescription of(CollectionStats stats) {
    CollectionDescription.Builder description =
        CollectionDescription.newBuilder()
            .setDocumentCount(stats.documentCount())
            .setBytesOnDisk(stats.bytesOnDisk())
            .setStoresText(stats.storesText())
            .setState(
                stats.state() == CollectionState.READY
                    ? dev.tenbin.proto.index.v1.CollectionState.COLLECTION_STATE_READY
                    : dev.tenbin.proto.index.v1.CollectionState.COLLECTION_STATE_FAILED);
    if (stats.error() != null) {
      description.setError(stats.error());
    }
    CollectionSpec spec = stats.spec();
    if (spec == null) {
      return description
          .setSpec(dev.tenbin.proto.index.v1.CollectionSpec.newBuilder().setName(stats.name()))
          .build();
    }
    description
        .setSpec(
            dev.tenbin.proto.index.v1.CollectionSpec.newBuilder()
                .setName(spec.name())
                .setLanguage(spec.language())
                .setBm25(Bm25Parameters.newBuilder().setK1(spec.bm25().k1()).setB(spec.bm25().b()))
                .setDenseDimension(spec.denseDimension())
                .setSparseVocabularySize(spec.sparseVocabularySize())
                .setMultivectorDimension(spec.multiVectorDimension()))
        .addFamilies(Family.FAMILY_BM25);
    if (spec.sparseVocabularySize() > 0) {
      description.addFamilies(Family.FAMILY_SPARSE);
    }
    if (spec.multiVectorDimension() > 0) {
      description.addFamilies(Family.FAMILY_MULTIVECTOR);
    }
    if (spec.denseDimension() > 0) {
      description.addFamilies(Family.FAMILY_DENSE);
      for (Quantization quantization : Quantization.values()) {
        description.addFootprints(
            VariantFootprint.newBuilder()
                .setVariant(
                    quantization == Quantization.NONE
                        ? "base"
                        : quantization.name().toLowerCase(Locale.ROOT))
                .setBytesPerVector(
                    DenseSearchOptions.bytesPerVector(quantization, spec.denseDimension())));
      }
      var calibration = stats.int8Calibration();
      if (calibration != null) {
        description.setInt8Calibration(calibration(calibration.calibration()));
      }
    }
    return description.build();
  }

  /** The wire form of an int8 calibration. */
  static Int8Calibration calibration(dev.tenbin.index.quantize.Int8Calibration calibration) {
    Int8Calibration.Builder proto = Int8Calibration.newBuilder();
    for (float v : calibration.min()) {
      proto.addMinimums(v);
    }
    for (float v : calibration.max()) {
      proto.addMaximums(v);
    }
    return proto.build();
  }
}
