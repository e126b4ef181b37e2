package dev.tenbin.index.grpc;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.Quantization;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.index.lexical.Bm25Statistics;
import dev.tenbin.index.quantize.Int8Calibration;
import dev.tenbin.index.search.DenseQuery;
import dev.tenbin.index.search.LexicalQuery;
import dev.tenbin.index.search.MultiVectorQuery;
import dev.tenbin.index.search.Query;
import dev.tenbin.index.search.SearchRequest;
import dev.tenbin.index.search.SparseQuery;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.RescoreRequest;
import dev.tenbin.proto.index.v1.SparseOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * Validates {@code Search} and {@code Rescore} requests and maps them to the core's one {@link
 * SearchRequest}, once: a required choice left UNSPECIFIED (family, dense similarity), a value this
 * service does not know (a newer client's), options of another family, or a query without the
 * family's representation is INVALID_ARGUMENT naming the field, never a silent default.
 */
final class SearchRequests {
  /** Largest {@code dense.rescore_depth}. */
  static final int MAX_RESCORE_DEPTH = 100_000;

  /**
   * Largest BM25 query text, in UTF-8 bytes (1 MiB): a long argument or a whole document used as a
   * query fits; a 10 MB "word" does not. The distinct terms after analysis are limited too ({@link
   * dev.tenbin.index.lexical.BagOfWordsQuery#MAX_TERMS}).
   */
  static final int MAX_QUERY_TEXT_BYTES = 1 << 20;

  private final IndexServiceConfig config;

  SearchRequests(IndexServiceConfig config) {
    this.config = config;
  }

  /** The core request of a {@code Search}: the top {@code top_k} of each query. */
  SearchRequest search(dev.tenbin.proto.index.v1.SearchRequest request) {
    if (request.getTopK() <= 0 || request.getTopK() > config.maxTopK()) {
      throw new InvalidInputException(
          "top_k", "top_k must be within 1.." + config.maxTopK() + ", got " + request.getTopK());
    }
    if (request.getQueriesCount() == 0) {
      throw new InvalidInputException("queries", "at least one query is required");
    }
    checkCount("queries", "queries", request.getQueriesCount());
    Family family = family(request.getFamily(), request.getFamilyValue());
    Options options =
        options(
            family,
            request.hasDense(),
            request.getDense(),
            request.hasSparse(),
            request.getSparse(),
            request.hasBm25(),
            request.getBm25());
    List<Query> queries = new ArrayList<>(request.getQueriesCount());
    for (int i = 0; i < request.getQueriesCount(); i++) {
      queries.add(query(family, options, request.getQueries(i), "queries[" + i + "]"));
    }
    return SearchRequest.topK(queries, request.getTopK());
  }

  /** The core request of a {@code Rescore}: the scores of each candidate list. */
  SearchRequest rescore(RescoreRequest request) {
    Family family = family(request.getFamily(), request.getFamilyValue());
    Options options =
        options(
            family,
            request.hasDense(),
            request.getDense(),
            request.hasSparse(),
            request.getSparse(),
            request.hasBm25(),
            request.getBm25());
    checkCount("candidates", "candidate lists", request.getCandidatesCount());
    List<Query> queries = new ArrayList<>(request.getCandidatesCount());
    List<List<String>> candidates = new ArrayList<>(request.getCandidatesCount());
    for (int i = 0; i < request.getCandidatesCount(); i++) {
      var list = request.getCandidates(i);
      queries.add(query(family, options, list.getQuery(), "candidates[" + i + "].query"));
      candidates.add(list.getDocIdsList());
    }
    return SearchRequest.rescore(queries, candidates);
  }

  private void checkCount(String field, String what, int count) {
    if (count > config.maxQueriesPerRequest()) {
      throw new InvalidInputException(
          field,
          "at most " + config.maxQueriesPerRequest() + " " + what + " per request, got " + count);
    }
  }

  /** The request's family; required. */
  static Family family(Family family, int number) {
    return switch (family) {
      case FAMILY_BM25, FAMILY_DENSE, FAMILY_SPARSE, FAMILY_MULTIVECTOR -> family;
      case FAMILY_UNSPECIFIED ->
          throw new InvalidInputException(
              "family",
              "family is required: FAMILY_BM25, FAMILY_DENSE, FAMILY_SPARSE or FAMILY_MULTIVECTOR");
      case UNRECOGNIZED -> throw new InvalidInputException("family", "unknown family " + number);
    };
  }

  /**
   * The family's options from the request's {@code options} oneof: {@code dense} is required for
   * FAMILY_DENSE, {@code sparse} optional for FAMILY_SPARSE, and neither belongs to another family.
   */
  private static Options options(
      Family family,
      boolean hasDense,
      DenseOptions dense,
      boolean hasSparse,
      SparseOptions sparse,
      boolean hasBm25,
      dev.tenbin.proto.index.v1.Bm25Options bm25) {
    if (hasBm25 && family != Family.FAMILY_BM25) {
      throw new InvalidInputException("bm25", "bm25 options belong to FAMILY_BM25, not " + family);
    }
    if (hasDense && family != Family.FAMILY_DENSE) {
      throw new InvalidInputException(
          "dense", "dense options belong to FAMILY_DENSE, not " + family);
    }
    if (hasSparse && family != Family.FAMILY_SPARSE) {
      throw new InvalidInputException(
          "sparse", "sparse options belong to FAMILY_SPARSE, not " + family);
    }
    if (family == Family.FAMILY_DENSE && !hasDense) {
      throw new InvalidInputException(
          "dense",
          "a dense search needs dense options naming the similarity (SIMILARITY_COSINE or SIMILARITY_DOT)");
    }
    if (sparse.getMaxQueryDims() < 0) {
      throw new InvalidInputException(
          "sparse.max_query_dims", "max_query_dims must not be negative");
    }
    if (sparse.getMaxDocumentDims() < 0) {
      throw new InvalidInputException(
          "sparse.max_document_dims", "max_document_dims must not be negative");
    }
    return new Options(
        hasDense ? dense(dense) : null,
        sparse.getMaxQueryDims(),
        sparse.getMaxDocumentDims(),
        hasBm25 && bm25.hasStatistics()
            ? statistics(bm25.getStatistics()).validated("bm25.statistics")
            : null);
  }

  /** The core form of collection-wide BM25 statistics. */
  static Bm25Statistics statistics(dev.tenbin.proto.index.v1.Bm25Statistics proto) {
    java.util.Map<String, Bm25Statistics.Term> terms = new java.util.LinkedHashMap<>();
    for (int i = 0; i < proto.getTermsCount(); i++) {
      var term = proto.getTerms(i);
      if (terms.put(
              term.getTerm(),
              new Bm25Statistics.Term(term.getDocumentFrequency(), term.getTotalTermFrequency()))
          != null) {
        throw new InvalidInputException(
            "bm25.statistics.terms[" + i + "].term", "a term may be listed once");
      }
    }
    return new Bm25Statistics(
        proto.getMaxDocuments(),
        proto.getDocumentCount(),
        proto.getTotalTermCount(),
        proto.getTotalDocumentFrequency(),
        terms);
  }

  /** The proto form of BM25 statistics. */
  static dev.tenbin.proto.index.v1.Bm25Statistics proto(Bm25Statistics statistics) {
    var out =
        dev.tenbin.proto.index.v1.Bm25Statistics.newBuilder()
            .setMaxDocuments(statistics.maxDocuments())
            .setDocumentCount(statistics.documentCount())
            .setTotalTermCount(statistics.totalTermCount())
            .setTotalDocumentFrequency(statistics.totalDocumentFrequency());
    statistics
        .terms()
        .forEach(
            (term, stats) ->
                out.addTerms(
                    dev.tenbin.proto.index.v1.TermStatistics.newBuilder()
                        .setTerm(term)
                        .setDocumentFrequency(stats.documentFrequency())
                        .setTotalTermFrequency(stats.totalTermFrequency())));
    return out.build();
  }

  /** The options a family's queries carry. */
  private record Options(
      DenseSearchOptions dense,
      int maxQueryDims,
      int maxDocumentDims,
      Bm25Statistics bm25Statistics) {}

  /** One query in the family's representation; {@code field} names it ({@code queries[3]}). */
  private static Query query(
      Family family, Options options, dev.tenbin.proto.index.v1.Query query, String field) {
    var representation = query.getRepresentationCase();
    return switch (family) {
      case FAMILY_BM25 -> {
        require(
            representation == dev.tenbin.proto.index.v1.Query.RepresentationCase.TEXT,
            field + ".text",
            "a BM25 query needs text");
        int bytes = query.getTextBytes().size();
        if (bytes > MAX_QUERY_TEXT_BYTES) {
          throw InvalidInputException.tooLarge(
              field + ".text",
              "a BM25 query's text may have at most "
                  + MAX_QUERY_TEXT_BYTES
                  + " UTF-8 bytes, this one has "
                  + bytes);
        }
        yield new LexicalQuery(query.getText(), options.bm25Statistics());
      }
      case FAMILY_DENSE -> {
        require(query.hasDense(), field + ".dense", "a dense query needs a dense vector");
        yield new DenseQuery(ProtoVectors.dense(query.getDense()), options.dense());
      }
      case FAMILY_SPARSE -> {
        require(query.hasSparse(), field + ".sparse", "a sparse query needs a sparse vector");
        yield new SparseQuery(
            ProtoVectors.sparse(query.getSparse()),
            options.maxQueryDims(),
            options.maxDocumentDims());
      }
      case FAMILY_MULTIVECTOR -> {
        require(
            query.hasMultiVector(),
            field + ".multi_vector",
            "a late-interaction query needs token vectors");
        yield new MultiVectorQuery(ProtoVectors.tokens(query.getMultiVector()));
      }
      case FAMILY_UNSPECIFIED, UNRECOGNIZED ->
          throw new IllegalStateException("family was checked: " + family);
    };
  }

  private static void require(boolean present, String field, String message) {
    if (!present) {
      throw new InvalidInputException(field, message);
    }
  }

  /** The similarity; required. */
  static VectorSimilarity similarity(DenseOptions options) {
    return switch (options.getSimilarity()) {
      case SIMILARITY_COSINE -> VectorSimilarity.COSINE;
      case SIMILARITY_DOT -> VectorSimilarity.DOT;
      case SIMILARITY_UNSPECIFIED ->
          throw new InvalidInputException(
              "dense.similarity", "similarity is required: SIMILARITY_COSINE or SIMILARITY_DOT");
      case UNRECOGNIZED ->
          throw new InvalidInputException(
              "dense.similarity", "unknown similarity " + options.getSimilarityValue());
    };
  }

  /** The float scan unless a quantization is asked for. */
  static Quantization quantization(DenseOptions options) {
    return switch (options.getQuantization()) {
      case QUANTIZATION_UNSPECIFIED, QUANTIZATION_NONE -> Quantization.NONE;
      case QUANTIZATION_INT8 -> Quantization.INT8;
      case QUANTIZATION_BINARY -> Quantization.BINARY;
      case UNRECOGNIZED ->
          throw new InvalidInputException(
              "dense.quantization", "unknown quantization " + options.getQuantizationValue());
    };
  }

  /** A dense search's variant. */
  static DenseSearchOptions dense(DenseOptions options) {
    if (options.getRescoreDepth() < 0 || options.getRescoreDepth() > MAX_RESCORE_DEPTH) {
      throw new InvalidInputException(
          "dense.rescore_depth",
          "rescore_depth must be within 0.."
              + MAX_RESCORE_DEPTH
              + " (0 = default), got "
              + options.getRescoreDepth());
    }
    if (options.getExactRankings() && !options.getApproximate()) {
      throw new InvalidInputException(
          "dense.exact_rankings",
          "exact_rankings applies to approximate searches only: an exact search's rankings are"
              + " already exact");
    }
    Quantization quantization = quantization(options);
    return new DenseSearchOptions(
        similarity(options),
        options.getTruncateDimensions(),
        quantization,
        options.getRescore(),
        options.getRescoreDepth(),
        options.getApproximate(),
        options.hasInt8Calibration() ? calibration(options, quantization) : null);
  }

  /** Given int8 ranges (a sharded collection's span), checked. */
  private static Int8Calibration calibration(DenseOptions options, Quantization quantization) {
    if (quantization != Quantization.INT8) {
      throw new InvalidInputException(
          "dense.int8_calibration",
          "int8_calibration applies to QUANTIZATION_INT8 only, not " + options.getQuantization());
    }
    var given = options.getInt8Calibration();
    float[] min = new float[given.getMinimumsCount()];
    float[] max = new float[given.getMaximumsCount()];
    for (int d = 0; d < min.length; d++) {
      min[d] = given.getMinimums(d);
    }
    for (int d = 0; d < max.length; d++) {
      max[d] = given.getMaximums(d);
    }
    try {
      return new Int8Calibration(min, max);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("dense.int8_calibration", e.getMessage());
    }
  }
}
