package dev.tenbin.eval.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.ServiceOptions;
import dev.tenbin.eval.parity.ParityRecord;
import dev.tenbin.eval.parity.ServingParity;
import dev.tenbin.eval.parity.ServingParity.Certificate;
import dev.tenbin.eval.parity.ServingParity.VectorAgreement;
import dev.tenbin.eval.services.Services;
import dev.tenbin.rpc.ServiceEndpoint;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tenbin parity}: a serving-parity certificate of one dense model under two conditions
 * ({@link ServingParity}).
 */
@Command(
    name = "parity",
    mixinStandardHelpOptions = true,
    description = {
      "Certify that a dense model serves the same results under two conditions: A (the embedded"
          + " encoder, or --encoder-endpoint) and B (--b-endpoint, --b-model, --b-batch; by default"
          + " the same as A). Both encode the corpus and the evaluated queries, search exactly"
          + " (cosine, FP32) and are scored; the certificate gives Δ nDCG@10 (B − A) with its"
          + " paired 95%% interval and tests, the queries whose top 10 changed, and the cosine of"
          + " A's and B's vectors (min, mean) with the largest component difference.",
      "Exit 0 whatever the difference: the certificate reports it."
    })
public final class ParityCommand implements Callable<Integer> {
  @Option(
      names = "--dataset",
      required = true,
      paramLabel = "DIR",
      description = "A BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv).")
  Path dataset;

  @Option(
      names = "--split",
      defaultValue = "test",
      paramLabel = "NAME",
      description = "The qrels split (default ${DEFAULT-VALUE}).")
  String split;

  @Option(
      names = "--model",
      required = true,
      paramLabel = "MODEL",
      description = "The dense model A encodes with (and B, unless --b-model).")
  String model;

  @Option(
      names = "--b-model",
      paramLabel = "MODEL",
      description = "The model B encodes with, e.g. another ONNX file of the same model.")
  String modelB;

  @Option(
      names = "--b-endpoint",
      paramLabel = "HOST:PORT",
      description = "B's encoder service (default: A's).")
  String endpointB;

  @Option(
      names = "--batch",
      defaultValue = "32",
      paramLabel = "N",
      description = "Texts per encode request of A (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(
      names = "--b-batch",
      paramLabel = "N",
      description = "Texts per encode request of B (default: --batch).")
  Integer batchB;

  @Option(
      names = "--top-k",
      defaultValue = "100",
      paramLabel = "K",
      description = "Depth of each ranking (default ${DEFAULT-VALUE}).")
  int topK;

  @Option(
      names = "--permutations",
      defaultValue = "10000",
      paramLabel = "N",
      description = "Randomization draws of the paired test (default ${DEFAULT-VALUE}).")
  int permutations;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Seed of the randomization test (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--json", description = "Print the certificate as one JSON object.")
  boolean json;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description = "Also write the certificate as JSON to FILE.")
  Path out;

  @CommandLine.ArgGroup(validate = false, heading = ServiceOptions.HEADING)
  ServiceOptions serviceOptions = new ServiceOptions();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (batch < 1) {
      throw new InvalidInputException("--batch", "--batch must be 1 or more, got " + batch);
    }
    if (batchB != null && batchB < 1) {
      throw new InvalidInputException("--b-batch", "--b-batch must be 1 or more, got " + batchB);
    }
    if (topK < 10 || topK > 10_000) {
      throw new InvalidInputException("--top-k", "--top-k must be within 10..10000, got " + topK);
    }
    if (permutations < 1) {
      throw new InvalidInputException(
          "--permutations", "--permutations must be 1 or more, got " + permutations);
    }
    JobLauncher.Options optionsA = serviceOptions.toOptions();
    ServiceEndpoint remoteB = serviceOptions.encoderEndpoint("--b-endpoint", endpointB);
    BeirDataset data = BeirDatasetReader.read(dataset, split);
    PrintWriter err = spec.commandLine().getErr();
    data.warnings().forEach(warning -> err.println("tenbin: warning: " + warning));
    if (data.evaluatedQueryIds().isEmpty()) {
      throw new InvalidInputException("--dataset", dataset + " has no judged query to compare on");
    }
    String labelA =
        optionsA.encoder() == null ? "embedded" : "endpoint " + serviceOptions.encoderEndpoint();
    String labelB = remoteB == null ? labelA : "endpoint " + endpointB;
    Certificate certificate;
    try (Services servicesA = optionsA.connect();
        Services servicesB =
            remoteB == null
                ? null
                : new JobLauncher.Options(
                        optionsA.index(),
                        remoteB,
                        optionsA.rerank(),
                        optionsA.modelsDirectory(),
                        optionsA.cacheDirectory(),
                        optionsA.execution())
                    .connect()) {
      EncoderClient clientA = servicesA.encoder();
      EncoderClient clientB = servicesB == null ? clientA : servicesB.encoder();
      err.printf(
          Locale.ROOT,
          "tenbin parity: %s, %d queries, %d documents, encoded twice%n",
          data.name(),
          data.evaluatedQueryIds().size(),
          data.corpus().size());
      err.flush();
      certificate =
          ServingParity.compare(
              data,
              new ServingParity.Side(labelA, model, batch, clientA.denseEncoding()),
              new ServingParity.Side(
                  labelB,
                  modelB == null ? model : modelB,
                  batchB == null ? batch : batchB,
                  clientB.denseEncoding()),
              topK,
              permutations,
              seed);
    }
    ObjectNode tree = ParityRecord.toJson(certificate);
    if (out != null) {
      try {
        Files.writeString(out, tree.toPrettyString() + "\n", StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + out, e);
      }
    }
    PrintWriter stdout = spec.commandLine().getOut();
    stdout.print(json ? tree.toString() + "\n" : text(certificate));
    stdout.flush();
    return 0;
  }

  /** The certificate as a few lines of text. */
  static String text(Certificate c) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "parity on %s: %d queries, %d documents%n  A: %s%n  B: %s%n",
            c.dataset(),
            c.queries(),
            c.documents(),
            c.a(),
            c.b()));
    out.append(
        String.format(
            Locale.ROOT,
            "%s ×100: A %.2f, B %.2f; Δ B−A %+.2f (95%% CI %+.2f to %+.2f; p randomization %s,"
                + " p t %s)%n",
            ServingParity.METRIC,
            c.scoreA(),
            c.scoreB(),
            c.delta(),
            c.deltaLow(),
            c.deltaHigh(),
            p(c.test().randomizationP()),
            p(c.test().tTestP())));
    out.append(
        String.format(
            Locale.ROOT,
            "top 10 changed: %d of %d queries as a set, %d in order%n",
            c.top10ChangedAsSet(),
            c.queries(),
            c.top10ChangedInOrder()));
    out.append(vectors("document vectors", c.documentVectors()));
    out.append(vectors("query vectors", c.queryVectors()));
    out.append(
        c.identical()
            ? "verdict: identical (every vector bit for bit)\n"
            : "verdict: different vectors; the figures above say by how much\n");
    return out.toString();
  }

  private static String vectors(String what, VectorAgreement v) {
    return String.format(
        Locale.ROOT,
        "%s: cosine min %.6f, mean %.6f; largest component difference %.3g; %d of %d identical%n",
        what,
        v.minCosine(),
        v.meanCosine(),
        v.maxAbsDifference(),
        v.identical(),
        v.vectors());
  }

  private static String p(double value) {
    return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%.4f", value);
  }
}
