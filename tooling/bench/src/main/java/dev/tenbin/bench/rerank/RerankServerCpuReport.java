package dev.tenbin.bench.rerank;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.bench.rerank.RerankServerCpuBenchmark.Level;
import dev.tenbin.bench.rerank.RerankServerCpuBenchmark.ProcessCpu;
import dev.tenbin.bench.rerank.RerankServerCpuBenchmark.Result;
import dev.tenbin.bench.rerank.RerankServerCpuBenchmark.Service;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * The output of {@code tenbin bench rerank --server-cpu}: one row per level, as JSON ({@link
 * #json}) or as a table ({@link #print}).
 */
public final class RerankServerCpuReport {
  private RerankServerCpuReport() {}

  /** The result as one JSON object, a row per level under {@code levels}. */
  public static ObjectNode json(Result r) {
    ObjectNode root = new ObjectMapper().createObjectNode();
    root.put("model", r.model());
    root.put("queries", r.queries());
    root.put("pairs_per_request", r.pairsPerRequest());
    root.put("requests_per_level", r.requests());
    root.put("warm_up_requests", r.warmUpRequests());
    root.put("cores", r.cores());
    ArrayNode services = root.putArray("server_processes");
    r.services().forEach(service -> services.add(service.label()));
    ArrayNode rows = root.putArray("levels");
    for (Level level : r.levels()) {
      ObjectNode row = rows.addObject();
      row.put("in_flight", level.inFlight());
      row.put("in_process_cpu_us_per_request", level.inProcessCpuMicros());
      row.put("server_cpu_us_per_request", level.serverCpuMicros());
      row.put("server_over_in_process_cpu", level.serverOverInProcessCpu());
      ArrayNode processes = row.putArray("server_processes");
      for (ProcessCpu process : level.serverProcesses()) {
        processes
            .addObject()
            .put("service", process.service().label())
            .put("cpu_us_per_request", process.cpuMicros())
            .put("share", level.share(process));
      }
      row.put("client_cpu_us_per_request", level.clientCpuMicros());
      row.put("in_process_requests_per_s", level.inProcessRequestsPerSecond());
      row.put("grpc_requests_per_s", level.grpcRequestsPerSecond());
      row.put("grpc_over_in_process_throughput", level.grpcOverInProcessThroughput());
    }
    return root;
  }

  /** The result as a heading and a table, a column of CPU and share per service process. */
  public static void print(Result r, PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%s: %d queries, %d candidates per request, %d requests per side and level after %d"
            + " warm-up requests, %d cores; server CPU: %s%n",
        r.model(),
        r.queries(),
        r.pairsPerRequest(),
        r.requests(),
        r.warmUpRequests(),
        r.cores(),
        String.join(
            " + ", r.services().stream().map(service -> service.label() + " process").toList()));
    StringBuilder header = new StringBuilder();
    header.append(
        String.format(
            Locale.ROOT, "%9s %14s %14s", "in flight", "in-proc cpu us", "server cpu us"));
    for (Service service : r.services()) {
      header.append(String.format(Locale.ROOT, " %20s", service.label() + " cpu us (share)"));
    }
    header.append(
        String.format(
            Locale.ROOT,
            " %10s %14s %12s %12s %10s",
            "server/in",
            "client cpu us",
            "in-proc r/s",
            "gRPC r/s",
            "gRPC/in"));
    out.println(header);
    for (Level level : r.levels()) {
      StringBuilder row = new StringBuilder();
      row.append(
          String.format(
              Locale.ROOT,
              "%9d %14.1f %14.1f",
              level.inFlight(),
              level.inProcessCpuMicros(),
              level.serverCpuMicros()));
      for (ProcessCpu process : level.serverProcesses()) {
        row.append(
            String.format(
                Locale.ROOT, " %13.1f (%3.0f%%)", process.cpuMicros(), 100 * level.share(process)));
      }
      row.append(
          String.format(
              Locale.ROOT,
              " %10.2f %14.1f %12.1f %12.1f %10.2f",
              level.serverOverInProcessCpu(),
              level.clientCpuMicros(),
              level.inProcessRequestsPerSecond(),
              level.grpcRequestsPerSecond(),
              level.grpcOverInProcessThroughput()));
      out.println(row);
    }
  }
}
