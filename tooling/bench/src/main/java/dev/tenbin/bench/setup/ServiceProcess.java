package dev.tenbin.bench.setup;

import dev.tenbin.core.OrderedShutdown;
import dev.tenbin.testing.rpc.LoopbackPorts;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Tenbin service in a process of its own ({@code tenbin serve SERVICE …} on this JVM's java,
 * class path and flags, on a free loopback port), so that a bench can read the service's CPU time
 * from the operating system ({@link #cpuNanos}) apart from the load generator's. Its output goes to
 * {@code service.log} in the folder it is given; it is stopped with SIGTERM on {@link #close}, or
 * when this JVM shuts down before that (Ctrl-C, SIGTERM; {@link OrderedShutdown}), forcibly after
 * 20 s. When this JVM ends without shutting down ({@code kill -9}, a crash), the service stops by
 * itself ({@link ExitWithParent}).
 */
public final class ServiceProcess implements AutoCloseable {
  private static final String MAIN = "dev.tenbin.eval.cli.TenbinCli";

  private final Process process;
  private final int port;
  private final Path log;
  private volatile OrderedShutdown.Registration onShutdown = () -> {};

  private ServiceProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts {@code tenbin serve service --host 127.0.0.1 --port P extra…} and waits until its gRPC
   * health check answers SERVING.
   */
  public static ServiceProcess start(String service, Path folder, List<String> extra) {
    return startMain(
        folder,
        MAIN,
        port -> {
          List<String> args = new ArrayList<>();
          args.addAll(List.of("serve", service, "--host", "127.0.0.1", "--port", "" + port));
          args.addAll(extra);
          return args;
        });
  }

  /**
   * Starts {@code mainClass} with the arguments {@code args} gives for a free loopback port, on
   * this JVM's class path and flags, and waits until its gRPC health check answers SERVING.
   */
  public static ServiceProcess startMain(
      Path folder, String mainClass, java.util.function.IntFunction<List<String>> args) {
    int port = LoopbackPorts.reserve();
    Path log = folder.resolve("service.log");
    Process process;
    try {
      Files.createDirectories(folder);
      // Standard input stays a pipe from this process, never written to: ExitWithParent stops the
      // service when it ends, which it does when this process does.
      process =
          new ProcessBuilder(command(mainClass, args.apply(port)))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + mainClass, e);
    }
    ServiceProcess started = new ServiceProcess(process, port, log);
    try {
      started.onShutdown =
          OrderedShutdown.register(
              OrderedShutdown.Stage.SERVERS, mainClass + " " + process.pid(), started::close);
      started.awaitServing(Duration.ofSeconds(120));
      return started;
    } catch (RuntimeException e) {
      started.close();
      throw e;
    }
  }

  /**
   * The command line that runs {@code mainClass} with {@code args} on this JVM's java, flags and
   * class path, under {@link ExitWithParent}: the process stops when its standard input, a pipe
   * from this process, ends.
   */
  static List<String> command(String mainClass, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      // The launcher hands its standard error to this JVM as a descriptor the child does not have.
      if (!flag.startsWith("-Dtenbin.stderr.")) {
        command.add(flag);
      }
    }
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), ExitWithParent.class.getName()));
    command.add(mainClass);
    command.addAll(args);
    return command;
  }

  private void awaitServing(Duration limit) {
    ManagedChannel channel = channel();
    try {
      long deadline = System.nanoTime() + limit.toNanos();
      while (true) {
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "the service exited with " + process.exitValue() + " before serving; see " + log);
        }
        try {
          HealthCheckResponse response =
              HealthGrpc.newBlockingStub(channel)
                  .withDeadlineAfter(2, TimeUnit.SECONDS)
                  .check(HealthCheckRequest.getDefaultInstance());
          if (response.getStatus() == HealthCheckResponse.ServingStatus.SERVING) {
            return;
          }
        } catch (io.grpc.StatusRuntimeException notYet) {
          // Not listening or not ready yet.
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the service did not serve within " + limit.toSeconds() + " s; see " + log);
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the service", e);
    } finally {
      channel.shutdownNow();
    }
  }

  /** A new plaintext channel to the service; the caller shuts it down. */
  public ManagedChannel channel() {
    return NettyChannelBuilder.forAddress("127.0.0.1", port)
        .usePlaintext()
        .maxInboundMessageSize(256 * 1024 * 1024)
        .build();
  }

  public int port() {
    return port;
  }

  public long pid() {
    return process.pid();
  }

  /**
   * The CPU time (user and system, all threads) the service's process has used so far, as the
   * operating system counts it (on Linux in clock ticks, 10 ms: measure seconds of work).
   */
  public long cpuNanos() {
    return process
        .toHandle()
        .info()
        .totalCpuDuration()
        .orElseThrow(() -> new IllegalStateException("the OS does not report the service's CPU"))
        .toNanos();
  }

  @Override
  public void close() {
    onShutdown.close();
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
