package dev.tenbin.testing.rpc;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.logging.LogRecord;
import org.slf4j.LoggerFactory;

/**
 * Sends bytes that are no protobuf message at all (11 bytes of {@code 0xFF}: a varint that never
 * ends) as the request of every method of a service, as a hostile client probing a service would,
 * through a raw call with a byte-array marshaller, and reports what came back and what the server
 * logged meanwhile: every logback event (the servers' logging) and every java.util.logging record
 * at SEVERE (grpc-java's "application error").
 */
public final class UndecodableRequests {
  /** Eleven bytes no message can be decoded from. */
  public static final byte[] GARBAGE = {
    (byte) 0xFF,
    (byte) 0xFF,
    (byte) 0xFF,
    (byte) 0xFF,
    (byte) 0xFF,
    (byte) 0xFF,
    (byte) 0xFF,
    (byte) 0xFF,
    (byte) 0xFF,
    (byte) 0xFF,
    (byte) 0xFF
  };

  /** How one method answered. */
  public record Answer(String method, MethodDescriptor.MethodType type, Status status) {}

  /**
   * The answers, one per method, and the server's log events meanwhile.
   *
   * @param events every logback event logged while the requests were served
   * @param severe java.util.logging records at SEVERE
   */
  public record Report(List<Answer> answers, List<ILoggingEvent> events, List<LogRecord> severe) {
    /** Events at WARN or above, or carrying a stack trace. */
    public List<String> loud() {
      List<String> loud = new ArrayList<>();
      for (ILoggingEvent event : events) {
        if (event.getLevel().isGreaterOrEqual(Level.WARN) || event.getThrowableProxy() != null) {
          loud.add(
              event.getLevel() + " " + event.getLoggerName() + " " + event.getFormattedMessage());
        }
      }
      for (LogRecord record : severe) {
        loud.add(
            "JUL " + record.getLevel() + " " + record.getLoggerName() + " " + record.getMessage());
      }
      return loud;
    }
  }

  private UndecodableRequests() {}

  /** Sends {@link #GARBAGE} to every method of {@code service} on {@code channel}. */
  public static Report sendToEveryMethod(Channel channel, ServiceDescriptor service) {
    List<MethodDescriptor<?, ?>> methods = new ArrayList<>(service.getMethods());
    methods.sort(Comparator.comparing(MethodDescriptor::getFullMethodName));
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.setContext(context);
    appender.setName("undecodable-requests");
    appender.start();
    root.addAppender(appender);
    List<Answer> answers = new ArrayList<>();
    List<LogRecord> severe = new ArrayList<>();
    try {
      for (MethodDescriptor<?, ?> method : methods) {
        MalformedRequests.Outcome outcome =
            MalformedRequests.send(channel, method.getFullMethodName(), GARBAGE, method.getType());
        severe.addAll(outcome.severeLogRecords());
        answers.add(new Answer(method.getFullMethodName(), method.getType(), outcome.status()));
      }
      // The server closes and logs on its own threads: give the last call's a moment.
      Thread.sleep(300);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      root.detachAppender(appender);
      appender.stop();
    }
    List<ILoggingEvent> events;
    synchronized (appender.list) {
      events = List.copyOf(appender.list);
    }
    return new Report(answers, events, severe);
  }

  /** Whether a meter has counted anything (the interceptor preregisters OK meters at zero). */
  private static boolean counted(Meter meter) {
    for (io.micrometer.core.instrument.Measurement measurement : meter.measure()) {
      if (measurement.getStatistic() == io.micrometer.core.instrument.Statistic.COUNT
          && measurement.getValue() > 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * The status codes the server's Micrometer gRPC metrics recorded for the methods of {@code
   * service} (tag {@code statusCode}), one entry per meter that counted a call.
   */
  public static List<String> recordedStatusCodes(
      MeterRegistry registry, ServiceDescriptor service) {
    List<String> codes = new ArrayList<>();
    for (Meter meter : registry.getMeters()) {
      String code = meter.getId().getTag("statusCode");
      String serviceTag = meter.getId().getTag("service");
      if (code != null && service.getName().equals(serviceTag) && counted(meter)) {
        codes.add(code);
      }
    }
    return codes;
  }
}
