package dev.tenbin.eval.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.client.eval.EvalClient;
import dev.tenbin.client.eval.JobDownload;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.job.JobSpec;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.proto.eval.v1.CellResult;
import dev.tenbin.proto.eval.v1.GetResultsRequest;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.proto.eval.v1.MetricValue;
import dev.tenbin.proto.eval.v1.SubmitJobRequest;
import dev.tenbin.proto.eval.v1.TaskSetDocument;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientHttp;
import dev.tenbin.rpc.ClientOptions;
import dev.tenbin.rpc.HostPort;
import dev.tenbin.rpc.ServiceEndpoint;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The eval service's client commands, {@code tenbin job submit | list | status | watch | cancel |
 * results} (the flat {@code tenbin submit}, ... are deprecated aliases, see {@link TenbinCli}).
 * Each talks to a running {@code tenbin serve eval} at {@code --endpoint}. {@code submit} resolves
 * the spec's task sets on this machine (relative to the spec file) and sends them with the job.
 */
public final class JobCommands {
  private JobCommands() {}

  /** The endpoint option every client command shares. */
  static final class Endpoint {
    @Option(
        names = "--endpoint",
        defaultValue = "${env:TENBIN_EVAL_ENDPOINT:-localhost:50054}",
        paramLabel = "HOST:PORT",
        description =
            "The eval service; [ADDRESS]:PORT for IPv6 (env TENBIN_EVAL_ENDPOINT; default ${DEFAULT-VALUE}).")
    String endpoint;

    @CommandLine.Mixin ClientOptions security = new ClientOptions();

    /**
     * Opens a channel to the service, runs {@code body} with a client over it and closes the
     * channel.
     */
    <T> T call(java.util.function.Function<EvalClient, T> body) {
      ManagedChannel channel = open();
      try {
        return body.apply(EvalClient.of(channel));
      } finally {
        close(channel);
      }
    }

    ManagedChannel open() {
      ServiceEndpoint parsed = ServiceEndpoint.parse("--endpoint", endpoint);
      return ClientChannels.open(parsed.target(), security.toSecurity(), 512 * 1024 * 1024);
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
                Locale.ROOT,
                "%s %s: %d/%d cells (%d already stored)",
                job.getId(),
                state,
                job.getCellsDone(),
                job.getCellsTotal(),
                job.getCellsCached()));
    if (!job.getRunningCell().isEmpty()) {
      line.append(", running ").append(job.getRunningCell());
    }
    if (!job.getError().isEmpty()) {
      line.append(", errors: ").append(job.getError());
    }
    return line.toString();
  }

  static int exitCode(Job job) {
    return job.getState() == JobState.JOB_STATE_SUCCEEDED
            || job.getState() == JobState.JOB_STATE_RUNNING
            || job.getState() == JobState.JOB_STATE_QUEUED
        ? 0
        : RunCommand.EXIT_INCOMPLETE;
  }

  @Command(
      name = "submit",
      mixinStandardHelpOptions = true,
      description = {
        "Submit a job spec to a running eval service.",
        "The spec's task sets are read here (relative to the spec file) and sent with it; relative dataset"
            + " paths in them resolve against their own folder and must lie under one of the service's"
            + " --data-root folders (~ and $${ENV} are not expanded). The whole job is checked before it is"
            + " queued: a bad job exits 2 with the service's message."
      })
  public static final class Submit implements Callable<Integer> {
    @Parameters(
        index = "0",
        paramLabel = "SPEC",
        description = "Job spec (YAML); its task_sets are resolved relative to it, here.")
    Path specFile;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "DIR",
        description =
            "The job's folder, relative to the service's --results-root (an absolute path must lie inside it).")
    String out;

    @Option(
        names = "--watch",
        description = "Follow the job until it ends; exit 3 when it ends failed or cancelled.")
    boolean watch;

    @Option(
        names = "--reconnect-seconds",
        defaultValue = "120",
        paramLabel = "N",
        description =
            "With --watch: how long to keep reconnecting when the service is unavailable (default ${DEFAULT-VALUE}).")
    int reconnectSeconds;

    @CommandLine.Mixin Endpoint endpoint = new Endpoint();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      SubmitJobRequest request = request(specFile, out);
      return endpoint.call(
          client -> {
            Job job = client.submitJob(request);
            spec.commandLine().getOut().println(job.getId());
            spec.commandLine().getOut().flush();
            spec.commandLine()
                .getErr()
                .println("tenbin: " + job.getId() + " queued, writing into " + job.getOutputDir());
            spec.commandLine().getErr().flush();
            return watch
                ? Watch.follow(client, job.getId(), spec.commandLine().getErr(), reconnectSeconds)
                : 0;
          });
    }

    /**
     * The request for {@code specFile}: the spec text and every task set it names, read from this
     * machine (relative to the spec's folder) with the folder it was read from.
     */
    static SubmitJobRequest request(Path specFile, String out) {
      JobSpec job = JobSpec.read(specFile);
      SubmitJobRequest.Builder request =
          SubmitJobRequest.newBuilder().setSpecYaml(job.yaml()).setOutputDir(out);
      for (int i = 0; i < job.taskSetNames().size(); i++) {
        Path file = job.taskSets().get(i);
        if (!Files.isRegularFile(file)) {
          throw new InvalidInputException(
              "task_sets[" + i + "]",
              "job spec "
                  + specFile
                  + " names task set "
                  + job.taskSetNames().get(i)
                  + ", not found at "
                  + file);
        }
        String yaml;
        try {
          yaml = Files.readString(file);
        } catch (IOException e) {
          throw new InvalidInputException(
              "task_sets[" + i + "]", "cannot read task set " + file + ": " + e.getMessage());
        }
        request.addTaskSets(
            TaskSetDocument.newBuilder()
                .setName(job.taskSetNames().get(i))
                .setYaml(yaml)
                .setBaseDir(file.toAbsolutePath().normalize().getParent().toString()));
      }
      return request.build();
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true, description = "Show a job's state.")
  public static final class Status implements Callable<Integer> {
    @Parameters(
        index = "0",
        paramLabel = "JOB",
        description = "The job's id (job-…), as submit printed it.")
    String jobId;

    @CommandLine.Mixin Endpoint endpoint = new Endpoint();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Job job = endpoint.call(client -> client.getJob(jobId));
      spec.commandLine().getOut().println(describe(job));
      return exitCode(job);
    }
  }

  @Command(
      name = "watch",
      mixinStandardHelpOptions = true,
      description = "Follow a job until it ends; exit 3 when it ends failed or cancelled.")
  public static final class Watch implements Callable<Integer> {
    @Parameters(
        index = "0",
        paramLabel = "JOB",
        description = "The job's id (job-…), as submit printed it.")
    String jobId;

    @Option(
        names = "--reconnect-seconds",
        defaultValue = "120",
        paramLabel = "N",
        description =
            "How long to keep reconnecting when the service is unavailable, e.g. restarting (default ${DEFAULT-VALUE}).")
    int reconnectSeconds;

    @CommandLine.Mixin Endpoint endpoint = new Endpoint();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      return endpoint.call(
          client -> follow(client, jobId, spec.commandLine().getErr(), reconnectSeconds));
    }

    /**
     * Prints the job's states until it ends; jobs survive a restart of the service, so an
     * unavailable service is retried for {@code reconnectSeconds}.
     */
    static int follow(EvalClient client, String jobId, PrintWriter err, int reconnectSeconds) {
      try (InterruptNotice notice =
          InterruptNotice.whileRunning(
              err,
              () ->
                  "job "
                      + jobId
                      + " keeps running on the eval service: tenbin job watch "
                      + jobId
                      + " follows it again")) {
        return followUntilEnd(client, jobId, err, reconnectSeconds);
      }
    }

    private static int followUntilEnd(
        EvalClient client, String jobId, PrintWriter err, int reconnectSeconds) {
      Job last = null;
      long giveUpAt = 0;
      while (true) {
        try {
          Iterator<dev.tenbin.proto.eval.v1.WatchJobResponse> updates = client.watchJob(jobId);
          while (updates.hasNext()) {
            last = updates.next().getJob();
            giveUpAt = 0;
            err.println("tenbin: " + describe(last));
            err.flush();
          }
          return last == null ? RunCommand.EXIT_INCOMPLETE : exitCode(last);
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() != io.grpc.Status.Code.UNAVAILABLE) {
            throw e;
          }
          long now = System.nanoTime();
          if (giveUpAt == 0) {
            giveUpAt = now + TimeUnit.SECONDS.toNanos(reconnectSeconds);
            err.println(
                "tenbin: the eval service is unavailable; reconnecting for up to "
                    + reconnectSeconds
                    + " s");
            err.flush();
          }
          if (now - giveUpAt > 0) {
            throw e;
          }
          try {
            Thread.sleep(1000);
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw e;
          }
        }
      }
    }
  }

  @Command(
      name = "cancel",
      mixinStandardHelpOptions = true,
      description = "Cancel a queued or running job.")
  public static final class Cancel implements Callable<Integer> {
    @Parameters(
        index = "0",
        paramLabel = "JOB",
        description = "The job's id (job-…), as submit printed it.")
    String jobId;

    @CommandLine.Mixin Endpoint endpoint = new Endpoint();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Job job = endpoint.call(client -> client.cancelJob(jobId));
      spec.commandLine().getOut().println(describe(job));
      return 0;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the service's jobs, oldest first, finished ones included.")
  public static final class ListJobs implements Callable<Integer> {
    @Option(names = "--json", description = "One JSON object per job, one per line.")
    boolean json;

    @CommandLine.Mixin Endpoint endpoint = new Endpoint();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      List<Job> jobs = endpoint.call(EvalClient::listJobs);
      if (!json) {
        out.printf(
            Locale.ROOT,
            "%-16s %-9s %-11s %-20s %-24s %s%n",
            "id",
            "state",
            "cells",
            "submitted",
            "name",
            "output");
      }
      for (Job job : jobs) {
        String state = job.getState().name().replace("JOB_STATE_", "").toLowerCase(Locale.ROOT);
        String submitted = job.hasSubmitTime() ? instant(job.getSubmitTime()).toString() : "";
        if (json) {
          ObjectNode node = ResultStore.JSON.createObjectNode();
          node.put("id", job.getId());
          node.put("name", job.getName());
          node.put("state", state);
          node.put("cells_total", job.getCellsTotal());
          node.put("cells_done", job.getCellsDone());
          node.put("cells_cached", job.getCellsCached());
          node.put("output_dir", job.getOutputDir());
          node.put("submitted", submitted);
          node.put("started", job.hasStartTime() ? instant(job.getStartTime()).toString() : "");
          node.put("ended", job.hasEndTime() ? instant(job.getEndTime()).toString() : "");
          node.put("error", job.getError());
          out.println(node);
        } else {
          out.printf(
              Locale.ROOT,
              "%-16s %-9s %-11s %-20s %-24s %s%n",
              job.getId(),
              state,
              job.getCellsDone() + "/" + job.getCellsTotal(),
              submitted.length() > 19 ? submitted.substring(0, 19) : submitted,
              job.getName(),
              job.getOutputDir());
        }
      }
      out.flush();
      return 0;
    }

    private static java.time.Instant instant(com.google.protobuf.Timestamp timestamp) {
      return java.time.Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos());
    }
  }

  /** {@code tenbin job VERB}: the job commands under one name. */
  @Command(
      name = "job",
      mixinStandardHelpOptions = true,
      description =
          "The eval service's jobs: submit | list | status | watch | cancel | results | web.",
      subcommands = {
        Submit.class,
        ListJobs.class,
        Status.class,
        Watch.class,
        Cancel.class,
        Results.class,
        Web.class
      })
  public static final class Jobs implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(spec.commandLine().getErr());
    }
  }

  @Command(
      name = "web",
      mixinStandardHelpOptions = true,
      description = {
        "GET a page, file or archive of the eval service's web UI (its --http-port) with the same TLS"
            + " and token options as the other job commands; the image has no curl.",
        "Pages and JSON print to standard output; --out FILE writes the body there (a job's archive:"
            + " /jobs/JOB/archive). An answer other than 2xx exits 1 with its status."
      })
  public static final class Web implements Callable<Integer> {
    @Parameters(
        index = "0",
        paramLabel = "PATH",
        description = "The path and query, e.g. /api/jobs or /jobs/JOB/files/leaderboard.md.")
    String path;

    @Option(
        names = "--endpoint",
        defaultValue = "${env:TENBIN_EVAL_WEB_ENDPOINT:-localhost:8081}",
        paramLabel = "HOST:PORT",
        description =
            "The eval service's web UI (env TENBIN_EVAL_WEB_ENDPOINT; default ${DEFAULT-VALUE}).")
    String endpoint;

    @Option(names = "--out", paramLabel = "FILE", description = "Write the body to FILE.")
    Path out;

    @CommandLine.Mixin ClientOptions security = new ClientOptions();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      if (path == null || !path.startsWith("/")) {
        throw new InvalidInputException("PATH", "PATH must start with /, got '" + path + "'");
      }
      HostPort address = HostPort.parse("--endpoint", endpoint);
      ClientHttp http = ClientHttp.of(security.toSecurity(), Duration.ofSeconds(10));
      PrintWriter err = spec.commandLine().getErr();
      HttpResponse<InputStream> response;
      try {
        response = http.get(address, path, Duration.ofMinutes(10));
      } catch (IOException e) {
        err.println("tenbin: GET " + path + " from " + address + " failed: " + e.getMessage());
        return 1;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 1;
      }
      try (InputStream body = response.body()) {
        int status = response.statusCode();
        if (status / 100 != 2) {
          String text = new String(body.readNBytes(2048), StandardCharsets.UTF_8).strip();
          err.println(
              "tenbin: GET " + path + ": HTTP " + status + (text.isEmpty() ? "" : ": " + text));
          return 1;
        }
        if (out != null) {
          Path temporary = out.resolveSibling(out.getFileName() + ".part");
          Files.copy(body, temporary, StandardCopyOption.REPLACE_EXISTING);
          Files.move(temporary, out, StandardCopyOption.REPLACE_EXISTING);
          err.println("tenbin: " + path + " -> " + out + " (" + Files.size(out) + " bytes)");
        } else {
          PrintWriter stdout = spec.commandLine().getOut();
          stdout.print(new String(body.readAllBytes(), StandardCharsets.UTF_8));
          stdout.flush();
        }
      }
      return 0;
    }
  }

  @Command(
      name = "results",
      mixinStandardHelpOptions = true,
      description = {
        "Print a job's stored cells: metrics (and rankings with --rankings).",
        "With --download DIR: copy the job's folder (leaderboards, warehouse, cells) into DIR."
      })
  public static final class Results implements Callable<Integer> {
    @Parameters(
        index = "0",
        paramLabel = "JOB",
        description = "The job's id (job-…), as submit printed it.")
    String jobId;

    @Option(names = "--json", description = "One JSON object per cell, one per line.")
    boolean json;

    @Option(
        names = "--rankings",
        description = "With --json: include each query's ranking with scores.")
    boolean rankings;

    @Option(
        names = "--download",
        paramLabel = "DIR",
        description =
            "Copy every file of the job's folder into DIR (created when missing): a file already"
                + " there with the same SHA-256 is skipped, a broken download resumes where it"
                + " stopped. `tenbin report DIR` and `tenbin export trec DIR` then work on it.")
    Path download;

    @CommandLine.Mixin Endpoint endpoint = new Endpoint();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      if (download != null) {
        PrintWriter err = spec.commandLine().getErr();
        return endpoint.call(
            client -> {
              Job job = client.getJob(jobId);
              if (job.getState() == JobState.JOB_STATE_QUEUED
                  || job.getState() == JobState.JOB_STATE_RUNNING) {
                err.printf(
                    "tenbin: %s is %s: its folder is still changing; download again when it"
                        + " ends%n",
                    jobId, job.getState() == JobState.JOB_STATE_QUEUED ? "queued" : "running");
              }
              JobDownload.Summary summary = new JobDownload(client).into(jobId, download);
              err.printf(
                  Locale.ROOT,
                  "tenbin: %s: %d files copied (%d bytes), %d already there, into %s%n",
                  jobId,
                  summary.downloaded(),
                  summary.bytes(),
                  summary.unchanged(),
                  download);
              err.flush();
              return 0;
            });
      }
      return endpoint.call(
          client -> {
            Iterator<dev.tenbin.proto.eval.v1.GetResultsResponse> cells =
                client.getResults(GetResultsRequest.newBuilder().setJobId(jobId).build());
            if (!json) {
              out.printf(
                  Locale.ROOT,
                  "%-44s %-22s %-16s %-24s %8s %9s%n",
                  "system",
                  "task",
                  "variant",
                  "mode",
                  "ndcg@10",
                  "recall@100");
            }
            while (cells.hasNext()) {
              CellResult cell = cells.next().getCell();
              if (json) {
                out.println(toJson(cell));
              } else {
                out.printf(
                    Locale.ROOT,
                    "%-44s %-22s %-16s %-24s %8.4f %9.4f%n",
                    cell.getModel(),
                    cell.getTask(),
                    cell.getVariant(),
                    modeName(cell.getMode()),
                    metric(cell, "ndcg@10"),
                    metric(cell, "recall@100"));
              }
            }
            out.flush();
            return 0;
          });
    }

    /** A mode as tables and reports show it: "retrieval", "rerank". */
    private static String modeName(dev.tenbin.proto.eval.v1.EvalMode mode) {
      return mode.name().replace("EVAL_MODE_", "").toLowerCase(Locale.ROOT);
    }

    private String toJson(CellResult cell) {
      ObjectNode node = ResultStore.JSON.createObjectNode();
      node.put("fingerprint", cell.getFingerprint());
      node.put("system", cell.getModel());
      node.put("task", cell.getTask());
      node.put("variant", cell.getVariant());
      node.put("mode", modeName(cell.getMode()));
      node.put("num_queries", cell.getNumQueries());
      ObjectNode metrics = node.putObject("metrics");
      cell.getMetricsList().forEach(m -> metrics.put(m.getName(), m.getValue()));
      if (rankings) {
        ArrayNode queries = node.putArray("rankings");
        cell.getRankingsList()
            .forEach(
                ranking -> {
                  ObjectNode query = queries.addObject();
                  query.put("query_id", ranking.getQueryId());
                  ArrayNode docs = query.putArray("documents");
                  ranking
                      .getDocumentsList()
                      .forEach(
                          doc ->
                              docs.addObject()
                                  .put("doc_id", doc.getDocId())
                                  .put("score", doc.getScore())
                                  .put("rank", doc.getRank()));
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
