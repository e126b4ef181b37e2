package dev.tenbin.eval.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.services.ServiceEndpoint;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.proto.eval.v1.CancelJobRequest;
import dev.tenbin.proto.eval.v1.CellResult;
import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.GetJobRequest;
import dev.tenbin.proto.eval.v1.GetResultsRequest;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.proto.eval.v1.MetricValue;
import dev.tenbin.proto.eval.v1.SubmitJobRequest;
import dev.tenbin.proto.eval.v1.WatchJobRequest;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientOptions;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The eval service's client commands: {@code tenbin submit | status | watch | cancel | results}.
 * Each talks to a running {@code tenbin serve eval} at {@code --endpoint}.
 */
public final class JobCommands {
  private JobCommands() {}

  /** The endpoint option every client command shares. */
  static final class Endpoint {
    @Option(
        names = "--endpoint",
        defaultValue = "${env:TENBIN_EVAL_ENDPOINT:-localhost:50054}",
        paramLabel = "HOST:PORT",
        description = "The eval service (default ${DEFAULT-VALUE}).")
    String endpoint;

    @CommandLine.Mixin ClientOptions security = new ClientOptions();

    /** Opens a channel to the service, runs {@code body} with it and closes it. */
    <T> T call(java.util.function.Function<ManagedChannel, T> body) {
      ManagedChannel channel = open();
      try {
        return body.apply(channel);
      } finally {
        close(channel);
      }
    }

    ManagedChannel open() {
      ServiceEndpoint parsed = ServiceEndpoint.parse("--endpoint", endpoint);
      return ClientChannels.open(parsed.host(), parsed.port(), security.toSecurity(), 512 * 1024 * 1024);
    }
  }

  static void close(ManagedChannel channel) {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static String describe(Job job) {
    String state = job.getState().name().replace("JOB_STATE_", "").toLowerCase(Locale.ROOT);
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT, "%s %s: %d/%d cells (%d already stored)", job.getId(), state, job.getCellsDone(),
                job.getCellsTotal(), job.getCellsCached()));
    if (!job.getRunningCell().isEmpty()) {
      line.append(", running ").append(job.getRunningCell());
    }
    if (!job.getError().isEmpty()) {
      line.append(", errors: ").append(job.getError());
    }
    return line.toString();
  }

  static int exitCode(Job job) {
    return job.getState() == JobState.JOB_STATE_SUCCEEDED || job.getState() == JobState.JOB_STATE_RUNNING
            || job.getState() == JobState.JOB_STATE_QUEUED
        ? 0
        : RunCommand.EXIT_INCOMPLETE;
  }

  @Command(name = "submit", mixinStandardHelpOptions = true, description = "Submit a job spec to a running eval service.")
  public static final class Submit implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SPEC", description = "Job spec (YAML); relative task set paths resolve on the service.")
    Path specFile;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output folder on the service's file system.")
    String out;

    @Option(names = "--watch", description = "Follow the job until it ends.")
    boolean watch;

    @CommandLine.Mixin Endpoint endpoint = new Endpoint();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      String yaml;
      try {
        yaml = Files.readString(specFile);
      } catch (IOException e) {
        throw new InvalidInputException("SPEC", "cannot read job spec " + specFile + ": " + e.getMessage());
      }
      return endpoint.call(channel -> {
        Job job =
            EvalServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(1, TimeUnit.MINUTES)
                .submitJob(SubmitJobRequest.newBuilder().setSpecYaml(yaml).setOutputDir(out).build())
                .getJob();
        spec.commandLine().getOut().println(job.getId());
        spec.commandLine().getOut().flush();
        return watch ? Watch.follow(channel, job.getId(), spec.commandLine().getErr()) : 0;
      });
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true, description = "Show a job's state.")
  public static final class Status implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "JOB") String jobId;

    @CommandLine.Mixin Endpoint endpoint = new Endpoint();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Job job =
          endpoint.call(channel -> EvalServiceGrpc.newBlockingStub(channel)
              .withDeadlineAfter(1, TimeUnit.MINUTES)
              .getJob(GetJobRequest.newBuilder().setJobId(jobId).build())
              .getJob());
      spec.commandLine().getOut().println(describe(job));
      return exitCode(job);
    }
  }

  @Command(name = "watch", mixinStandardHelpOptions = true, description = "Follow a job until it ends.")
  public static final class Watch implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "JOB") String jobId;

    @CommandLine.Mixin Endpoint endpoint = new Endpoint();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      return endpoint.call(channel -> follow(channel, jobId, spec.commandLine().getErr()));
    }

    static int follow(ManagedChannel channel, String jobId, PrintWriter err) {
      Job last = null;
      Iterator<dev.tenbin.proto.eval.v1.WatchJobResponse> updates =
          EvalServiceGrpc.newBlockingStub(channel).watchJob(WatchJobRequest.newBuilder().setJobId(jobId).build());
      while (updates.hasNext()) {
        last = updates.next().getJob();
        err.println("tenbin: " + describe(last));
        err.flush();
      }
      return last == null ? RunCommand.EXIT_INCOMPLETE : exitCode(last);
    }
  }

  @Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel a queued or running job.")
  public static final class Cancel implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "JOB") String jobId;

    @CommandLine.Mixin Endpoint endpoint = new Endpoint();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Job job =
          endpoint.call(channel -> EvalServiceGrpc.newBlockingStub(channel)
              .withDeadlineAfter(1, TimeUnit.MINUTES)
              .cancelJob(CancelJobRequest.newBuilder().setJobId(jobId).build())
              .getJob());
      spec.commandLine().getOut().println(describe(job));
      return 0;
    }
  }

  @Command(name = "results", mixinStandardHelpOptions = true, description = "Print a job's stored cells: metrics (and rankings with --rankings).")
  public static final class Results implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "JOB") String jobId;

    @Option(names = "--json", description = "One JSON object per cell, one per line.") boolean json;

    @Option(names = "--rankings", description = "With --json: include each query's ranking with scores.") boolean rankings;

    @CommandLine.Mixin Endpoint endpoint = new Endpoint();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      return endpoint.call(channel -> {
        Iterator<dev.tenbin.proto.eval.v1.GetResultsResponse> cells =
            EvalServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(10, TimeUnit.MINUTES)
                .getResults(GetResultsRequest.newBuilder().setJobId(jobId).build());
        if (!json) {
          out.printf(Locale.ROOT, "%-44s %-22s %-16s %-24s %8s %9s%n", "system", "task", "variant", "mode", "ndcg@10", "recall@100");
        }
        while (cells.hasNext()) {
          CellResult cell = cells.next().getCell();
          if (json) {
            out.println(toJson(cell));
          } else {
            out.printf(
                Locale.ROOT, "%-44s %-22s %-16s %-24s %8.4f %9.4f%n", cell.getModel(), cell.getTask(), cell.getVariant(),
                cell.getMode().name().replace("EVAL_MODE_", "").toLowerCase(Locale.ROOT), metric(cell, "ndcg@10"),
                metric(cell, "recall@100"));
          }
        }
        out.flush();
        return 0;
      });
    }

    private String toJson(CellResult cell) {
      ObjectNode node = ResultStore.JSON.createObjectNode();
      node.put("fingerprint", cell.getFingerprint());
      node.put("system", cell.getModel());
      node.put("task", cell.getTask());
      node.put("variant", cell.getVariant());
      node.put("mode", cell.getMode().name());
      node.put("num_queries", cell.getNumQueries());
      ObjectNode metrics = node.putObject("metrics");
      cell.getMetricsList().forEach(m -> metrics.put(m.getName(), m.getValue()));
      if (rankings) {
        ArrayNode queries = node.putArray("rankings");
        cell.getRankingsList().forEach(ranking -> {
          ObjectNode query = queries.addObject();
          query.put("query_id", ranking.getQueryId());
          ArrayNode docs = query.putArray("documents");
          ranking.getDocumentsList().forEach(doc -> docs.addObject().put("doc_id", doc.getDocId()).put("score", doc.getScore()).put("rank", doc.getRank()));
        });
      }
      return node.toString();
    }

    private static double metric(CellResult cell, String name) {
      for (MetricValue metric : cell.getMetricsList()) {
        if (metric.getName().equals(name)) {
          return metric.getValue();
        }
      }
      return Double.NaN;
    }
  }
}
