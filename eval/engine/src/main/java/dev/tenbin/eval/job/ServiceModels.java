package dev.tenbin.eval.job;

import dev.tenbin.core.TenbinException;
import dev.tenbin.eval.services.Services;
import dev.tenbin.proto.rerank.v1.RerankerInfo;
import dev.tenbin.proto.rerank.v1.RerankerKind;
import io.grpc.StatusRuntimeException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The models of the services a job launcher connects to (remote ones, or embedded ones started for
 * the asking), listed with {@code ListModels} and {@code ListRerankers}, which load nothing. A
 * listing is kept for {@link #FRESH}; a model not in a kept listing is looked for in a new one
 * before it is refused, so a model just put in the models folder is found. A service that cannot be
 * reached (or answers with an error) cannot be asked: nothing is checked then.
 */
public final class ServiceModels implements ModelCatalog {
  private static final Logger log = LoggerFactory.getLogger(ServiceModels.class);

  /** How long a listing is used without asking again. */
  static final Duration FRESH = Duration.ofSeconds(30);

  /** The deadline of one listing call. */
  static final Duration DEADLINE = Duration.ofSeconds(10);

  private final Supplier<Services> connect;
  private final Clock clock;
  private Listing encoder;
  private Listing rerank;

  private record Listing(Set<String> ids, Instant at) {}

  /** The models of {@code launcher}'s services. */
  public ServiceModels(JobLauncher launcher) {
    this(launcher::connect, Clock.systemUTC());
  }

  ServiceModels(Supplier<Services> connect, Clock clock) {
    this.connect = connect;
    this.clock = clock;
  }

  @Override
  public synchronized Optional<Set<String>> encoderModels() {
    if (encoder == null || encoder.at().plus(FRESH).isBefore(clock.instant())) {
      encoder = list("encoder", ServiceModels::encoderIds);
    }
    return encoder == null ? Optional.empty() : Optional.of(encoder.ids());
  }

  @Override
  public synchronized Optional<Set<String>> crossEncoders() {
    if (rerank == null || rerank.at().plus(FRESH).isBefore(clock.instant())) {
      rerank = list("rerank", ServiceModels::crossEncoderIds);
    }
    return rerank == null ? Optional.empty() : Optional.of(rerank.ids());
  }

  @Override
  public synchronized void refresh() {
    encoder = null;
    rerank = null;
  }

  private Listing list(String service, java.util.function.Function<Services, Set<String>> ids) {
    try (Services services = connect.get()) {
      return new Listing(Set.copyOf(ids.apply(services)), clock.instant());
    } catch (StatusRuntimeException | TenbinException e) {
      log.warn(
          "submit: the {} service cannot list its models now ({}); models are checked when the"
              + " job runs",
          service,
          e.getMessage());
      return null;
    }
  }

  private static Set<String> encoderIds(Services services) {
    Set<String> ids = new HashSet<>();
    services.encoder().withDeadline(DEADLINE).listModels().forEach(card -> ids.add(card.getId()));
    return ids;
  }

  private static Set<String> crossEncoderIds(Services services) {
    Set<String> ids = new HashSet<>();
    for (RerankerInfo info : services.reranker().withDeadline(DEADLINE).listRerankers()) {
      if (info.getKind() == RerankerKind.RERANKER_KIND_CROSS_ENCODER
          || info.getKind() == RerankerKind.RERANKER_KIND_UNSPECIFIED) {
        ids.add(info.getId());
      }
    }
    return ids;
  }
}
