package dev.tenbin.drill;

import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncodeDenseResponse;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.testing.rpc.LoopbackPorts;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Overload of a standalone encoder service: its capacity is measured first (texts per second with
 * four clients back to back), then requests are sent open-loop at {@code factor} times that rate
 * for {@code seconds}, each with a 30 s deadline. The service must refuse what it cannot do soon
 * (RESOURCE_EXHAUSTED within seconds of the start, nothing INTERNAL or UNAVAILABLE), keep its
 * memory bounded, and serve a normal request at its normal speed soon after the load stops.
 */
public final class OverloadDrill {
  private static final int TEXTS_PER_REQUEST = 16;

  private OverloadDrill() {}

  public static DrillResult run(
      Path work, String model, double factor, int seconds, String heap, long seed, DrillLog log)
      throws Exception {
    int port = LoopbackPorts.reserve();
    List<String> texts = texts(seed);
    try (ChildTenbin encoder =
        ChildTenbin.start(
            work,
            "encoder",
            List.of("-Xmx" + heap),
            List.of(
                "serve",
                "encoder",
                "--port",
                Integer.toString(port),
                "--cache-dir",
                work.resolve("cache").toString(),
                "--models-dir",
                work.resolve("models").toString()))) {
      encoder.awaitListeningPort(Duration.ofMinutes(2));
      ManagedChannel channel = DrillClients.channel(port);
      try {
        EncoderServiceGrpc.EncoderServiceBlockingStub blocking =
            EncoderServiceGrpc.newBlockingStub(channel);
        long baselineMillis = 0;
        for (int i = 0; i < 3; i++) {
          baselineMillis = timeOne(blocking, model, texts);
        }
        double capacity = capacity(blocking, model, texts, Duration.ofSeconds(10));
        double rate = factor * capacity / TEXTS_PER_REQUEST;
        log.line(
            String.format(
                java.util.Locale.ROOT,
                "baseline %d ms per request of %d texts; capacity %.0f texts/s; offering %.1f requests/s (%.0fx) for %d s",
                baselineMillis,
                TEXTS_PER_REQUEST,
                capacity,
                rate,
                factor,
                seconds));
        long rssBefore = encoder.samplePeakRss();
        Load load = offer(channel, model, texts, rate, Duration.ofSeconds(seconds), encoder);
        long loadEnd = System.nanoTime();
        long recoveryMillis = -1;
        while (System.nanoTime() - loadEnd < TimeUnit.MINUTES.toNanos(2)) {
          try {
            long millis = timeOne(blocking, model, texts);
            if (millis <= Math.max(3 * baselineMillis, baselineMillis + 200)) {
              recoveryMillis = (System.nanoTime() - loadEnd) / 1_000_000;
              break;
            }
          } catch (RuntimeException busy) {
            // still draining
          }
          Thread.sleep(250);
        }
        boolean alive = encoder.isAlive() && !encoder.crashed();
        long peakRss = encoder.samplePeakRss();
        int bad =
            load.codes().entrySet().stream()
                .filter(
                    e ->
                        !e.getKey().equals("OK")
                            && !e.getKey().equals("RESOURCE_EXHAUSTED")
                            && !e.getKey().equals("DEADLINE_EXCEEDED"))
                .mapToInt(Map.Entry::getValue)
                .sum();
        boolean passed =
            alive
                && bad == 0
                && load.firstRefusalMillis() >= 0
                && load.firstRefusalMillis() < 10_000
                && recoveryMillis >= 0
                && recoveryMillis < 30_000;
        String result =
            String.format(
                java.util.Locale.ROOT,
                "%s; first RESOURCE_EXHAUSTED after %.1f s (with RetryInfo: %s); accepted latency p50 %d ms, p99 %d ms;"
                    + " peak RSS %d MiB (%d MiB before the load, -Xmx%s); normal request at normal speed %.1f s after the load",
                load.codes(),
                load.firstRefusalMillis() / 1000.0,
                load.retryInfo() ? "yes" : "no",
                Percentiles.of(load.acceptedMillis(), 50),
                Percentiles.of(load.acceptedMillis(), 99),
                peakRss / 1024,
                rssBefore / 1024,
                heap,
                recoveryMillis / 1000.0);
        log.line(result);
        return new DrillResult(
            String.format(java.util.Locale.ROOT, "%.0fx overload, %d s", factor, seconds),
            "`tenbin serve encoder` (defaults, -Xmx"
                + heap
                + "), EncodeDense of "
                + TEXTS_PER_REQUEST
                + " synthetic ~120-word texts, dense:"
                + model
                + ", open loop at "
                + String.format(
                    java.util.Locale.ROOT, "%.0fx the measured %.0f texts/s", factor, capacity),
            "offered load "
                + String.format(java.util.Locale.ROOT, "%.0f", factor)
                + "x capacity, 30 s deadlines",
            result,
            passed);
      } finally {
        DrillClients.close(channel);
      }
    }
  }

  private static List<String> texts(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    String[] words =
        "river mountain city history science music energy water light market school garden"
            .split(" ");
    List<String> texts = new ArrayList<>();
    for (int t = 0; t < TEXTS_PER_REQUEST; t++) {
      StringBuilder text = new StringBuilder();
      for (int w = 0; w < 120; w++) {
        text.append(words[random.nextInt(words.length)]).append(' ');
      }
      texts.add(text.toString().trim());
    }
    return texts;
  }

  private static EncodeDenseRequest request(String model, List<String> texts) {
    return EncodeDenseRequest.newBuilder()
        .setModelId(model)
        .addAllTexts(texts)
        .setRole(InputRole.INPUT_ROLE_DOCUMENT)
        .build();
  }

  private static long timeOne(
      EncoderServiceGrpc.EncoderServiceBlockingStub stub, String model, List<String> texts) {
    long start = System.nanoTime();
    stub.withDeadlineAfter(60, TimeUnit.SECONDS).encodeDense(request(model, texts));
    return (System.nanoTime() - start) / 1_000_000;
  }

  /** Texts per second with four clients sending back to back. */
  private static double capacity(
      EncoderServiceGrpc.EncoderServiceBlockingStub stub,
      String model,
      List<String> texts,
      Duration length)
      throws InterruptedException {
    AtomicInteger done = new AtomicInteger();
    long end = System.nanoTime() + length.toNanos();
    List<Thread> clients = new ArrayList<>();
    long start = System.nanoTime();
    for (int c = 0; c < 4; c++) {
      clients.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (System.nanoTime() < end) {
                      timeOne(stub, model, texts);
                      done.addAndGet(texts.size());
                    }
                  }));
    }
    for (Thread client : clients) {
      client.join();
    }
    return done.get() / ((System.nanoTime() - start) / 1e9);
  }

  /** What the offered load got. */
  private record Load(
      Map<String, Integer> codes,
      long firstRefusalMillis,
      boolean retryInfo,
      List<Long> acceptedMillis) {}

  private static Load offer(
      ManagedChannel channel,
      String model,
      List<String> texts,
      double rate,
      Duration length,
      ChildTenbin encoder)
      throws InterruptedException {
    Map<String, Integer> codes = new ConcurrentHashMap<>();
    List<Long> accepted = Collections.synchronizedList(new ArrayList<>());
    AtomicLong firstRefusal = new AtomicLong(-1);
    AtomicInteger withRetryInfo = new AtomicInteger();
    AtomicInteger outstanding = new AtomicInteger();
    long start = System.nanoTime();
    ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    sampler.scheduleAtFixedRate(encoder::samplePeakRss, 0, 200, TimeUnit.MILLISECONDS);
    EncoderServiceGrpc.EncoderServiceStub async = EncoderServiceGrpc.newStub(channel);
    long intervalNanos = (long) (1e9 / rate);
    long next = start;
    try {
      while (System.nanoTime() - start < length.toNanos()) {
        long sent = System.nanoTime();
        outstanding.incrementAndGet();
        async
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .encodeDense(
                request(model, texts),
                new StreamObserver<EncodeDenseResponse>() {
                  @Override
                  public void onNext(EncodeDenseResponse response) {}

                  @Override
                  public void onError(Throwable failure) {
                    Status status = Status.fromThrowable(failure);
                    codes.merge(status.getCode().name(), 1, Integer::sum);
                    if (status.getCode() == Status.Code.RESOURCE_EXHAUSTED) {
                      firstRefusal.compareAndSet(-1, (System.nanoTime() - start) / 1_000_000);
                      com.google.rpc.Status details =
                          io.grpc.protobuf.StatusProto.fromThrowable(failure);
                      if (details != null
                          && details.getDetailsList().stream()
                              .anyMatch(any -> any.is(com.google.rpc.RetryInfo.class))) {
                        withRetryInfo.incrementAndGet();
                      }
                    }
                    outstanding.decrementAndGet();
                  }

                  @Override
                  public void onCompleted() {
                    codes.merge("OK", 1, Integer::sum);
                    accepted.add((System.nanoTime() - sent) / 1_000_000);
                    outstanding.decrementAndGet();
                  }
                });
        next += intervalNanos;
        long sleep = next - System.nanoTime();
        if (sleep > 0) {
          TimeUnit.NANOSECONDS.sleep(sleep);
        }
      }
      long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(35);
      while (outstanding.get() > 0 && System.nanoTime() < drainUntil) {
        Thread.sleep(50);
      }
    } finally {
      sampler.shutdownNow();
    }
    int refused = codes.getOrDefault("RESOURCE_EXHAUSTED", 0);
    return new Load(
        new TreeMap<>(codes),
        firstRefusal.get(),
        refused > 0 && withRetryInfo.get() == refused,
        new ArrayList<>(accepted));
  }
}
