package dev.tenbin.rpc;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a server loads after it has started and before its health says SERVING: the models named by
 * {@code --preload}, each loaded and warmed up. The loading runs on a thread of its own, so the
 * server answers liveness probes meanwhile; once it is done the host says SERVING ({@link
 * GrpcServerHost#markServing}); when it fails the host stops, and the failure is kept for the
 * process's exit code.
 */
public final class Preload {
  private static final Logger log = LoggerFactory.getLogger(Preload.class);

  private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

  private Preload() {}

  /** Nothing to load (an in-process server, serving from its start): never fails. */
  public static Preload none() {
    return new Preload();
  }

  /**
   * Loads {@code ids} with {@code loader} on a platform thread named {@code threadName}, then has
   * {@code host} say SERVING; with no ids, has it say SERVING at once, on this thread. A loader
   * that throws stops the host (its failure kept, see {@link #failure}).
   */
  public static Preload start(
      GrpcServerHost host, String threadName, List<String> ids, Consumer<List<String>> loader) {
    Preload preload = new Preload();
    if (ids.isEmpty()) {
      host.markServing();
    } else {
      List<String> named = List.copyOf(ids);
      Thread.ofPlatform().name(threadName).start(() -> preload.load(host, named, loader));
    }
    return preload;
  }

  private void load(GrpcServerHost host, List<String> ids, Consumer<List<String>> loader) {
    try {
      long start = System.nanoTime();
      loader.accept(ids);
      host.markServing();
      log.info("preloaded {} in {} ms; serving", ids, (System.nanoTime() - start) / 1_000_000);
    } catch (RuntimeException e) {
      failure.set(e);
      log.error("cannot preload {}: {}; stopping", ids, e.getMessage());
      host.close();
    }
  }

  /** Why loading failed (the host is then stopped), or null while it has not failed. */
  public RuntimeException failure() {
    return failure.get();
  }

  /** Whether loading failed, and so the host stopped. */
  public boolean failed() {
    return failure.get() != null;
  }
}
