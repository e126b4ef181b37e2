package dev.tenbin.rpc;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import dev.tenbin.core.SafeText;
import java.util.Locale;
import java.util.Map;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * How the process logs: one event a line on standard error, for Tenbin and every library alike
 * (java.util.logging, which gRPC and Lucene use, is bridged in), either as text
 *
 * <pre>2026-11-27T22:41:34.123Z INFO  [main] d.t.rpc.GrpcServerHost - gRPC on 127.0.0.1:50051: ...
 * </pre>
 *
 * (UTC timestamp, level, thread, logger, message, then any stack trace) or, for log collectors, as
 * one JSON object a line (logback's {@link JsonEncoder}: {@code timestamp} in epoch milliseconds,
 * {@code level}, {@code threadName}, {@code loggerName}, {@code formattedMessage}, {@code
 * throwable}). Logback finds {@link Setup} by itself at the first logger; the format comes from
 * {@code TENBIN_LOG_FORMAT} then, and from a server's {@code --log-format} once parsed.
 *
 * <p>No event can write a line that looks like another event: in text, line breaks and other
 * control characters of a message and of the exception messages of its stack trace are written as
 * escapes ({@link SafeText#oneLine}), whatever logged them and whatever a client put in the values
 * it logged (a collection name, a model id, a path); in JSON the encoder escapes them. This is the
 * one place values from clients are made safe for the log: call sites log them as they are.
 */
public final class ProcessLogging {
  /**
   * The text layout: the message on one line ({@code %oneLineMsg}, {@link SafeText#oneLine}), then
   * any stack trace, whose exception messages are on one line each too ({@code %oneLineEx}).
   */
  public static final String TEXT_PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX,UTC} %-5level [%thread] %logger{36} - %oneLineMsg%n%oneLineEx";

  /** Libraries' loggers held above INFO: start-up probes that say nothing an operator can use. */
  private static final Map<String, Level> QUIET =
      Map.of(
          // DJL probes for CUDA when its tokenizer library loads; tokenization never uses CUDA.
          "ai.djl.util.cuda.CudaUtils", Level.ERROR,
          "ai.djl.util.Platform", Level.WARN,
          // "Uses override RUST_FLAVOR: cpu", which Tenbin itself sets (DjlSettings).
          "ai.djl.huggingface.tokenizers.jni.LibUtils", Level.WARN);

  private static final String APPENDER = "stderr";

  /** The two ways to write an event. */
  public enum Format {
    TEXT,
    JSON;

    /** {@code text} or {@code json} (any case); anything else is refused, naming the flag. */
    public static Format parse(String value) {
      try {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException | NullPointerException e) {
        throw new IllegalArgumentException(
            "--log-format must be text or json, got '" + value + "'", e);
      }
    }

    /** The format {@code TENBIN_LOG_FORMAT} asks for; text when unset or unknown. */
    static Format fromEnvironment() {
      String value = System.getenv("TENBIN_LOG_FORMAT");
      return value != null && value.trim().equalsIgnoreCase("json") ? JSON : TEXT;
    }
  }

  private ProcessLogging() {}

  /** Writes every event in {@code format} from now on. */
  public static synchronized void use(Format format) {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      install(context, format);
    }
  }

  /** Logs events of {@code level} and above (the quiet libraries stay as they are). */
  public static synchronized void threshold(org.slf4j.event.Level level) {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(Level.toLevel(level.name()));
    }
  }

  /**
   * A writer for code that reports in lines (a job's "tenbin: leaderboards ..."): each whole line
   * becomes one INFO event of {@code log}, its "tenbin: " prefix dropped, so a server's standard
   * error holds only log events, in its one format.
   */
  public static java.io.PrintWriter lineWriter(org.slf4j.Logger log) {
    return new java.io.PrintWriter(
        new java.io.Writer() {
          private final StringBuilder line = new StringBuilder();

          @Override
          public synchronized void write(char[] chars, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
              char c = chars[i];
              if (c == '\n') {
                emit();
              } else if (c != '\r') {
                line.append(c);
              }
            }
          }

          private void emit() {
            String text = line.toString();
            line.setLength(0);
            if (text.startsWith("tenbin: ")) {
              text = text.substring("tenbin: ".length());
            }
            if (!text.isBlank()) {
              log.info(text);
            }
          }

          @Override
          public void flush() {}

          @Override
          public synchronized void close() {
            if (!line.isEmpty()) {
              emit();
            }
          }
        },
        true);
  }

  private static void install(LoggerContext context, Format format) {
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName(APPENDER);
    // ConsoleAppender writes to whatever System.err is at each write (QuietConsole may swap it).
    appender.setTarget("System.err");
    appender.setEncoder(encoder(context, format));
    appender.start();
    root.detachAppender(APPENDER);
    root.addAppender(appender);
  }

  private static Encoder<ILoggingEvent> encoder(LoggerContext context, Format format) {
    if (format == Format.JSON) {
      JsonEncoder json = new JsonEncoder();
      json.setContext(context);
      json.setWithSequenceNumber(false);
      json.setWithNanoseconds(false);
      json.setWithContext(false);
      json.setWithArguments(false);
      json.setWithMessage(false);
      json.setWithFormattedMessage(true);
      json.setWithMDC(false);
      json.setWithKVPList(false);
      json.setWithMarkers(false);
      json.start();
      return json;
    }
    PatternLayout layout = new PatternLayout();
    layout.setContext(context);
    layout.getInstanceConverterMap().put("oneLineMsg", OneLineMessage::new);
    layout.getInstanceConverterMap().put("oneLineEx", OneLineThrowable::new);
    layout.setPattern(TEXT_PATTERN);
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> text = new LayoutWrappingEncoder<>();
    text.setContext(context);
    text.setLayout(layout);
    text.start();
    return text;
  }

  /** The formatted message with line breaks and control characters escaped. */
  static final class OneLineMessage extends MessageConverter {
    @Override
    public String convert(ILoggingEvent event) {
      return SafeText.oneLine(super.convert(event));
    }
  }

  /**
   * The stack trace as logback writes it, each exception's message (and its causes' and suppressed
   * ones') on one line.
   */
  static final class OneLineThrowable extends ThrowableProxyConverter {
    @Override
    protected String throwableProxyToString(IThrowableProxy proxy) {
      return super.throwableProxyToString(new OneLineProxy(proxy));
    }
  }

  /** A throwable proxy whose messages (its own, its causes', its suppressed') are on one line. */
  private record OneLineProxy(IThrowableProxy proxy) implements IThrowableProxy {
    @Override
    public String getMessage() {
      return SafeText.oneLine(proxy.getMessage());
    }

    @Override
    public String getOverridingMessage() {
      return SafeText.oneLine(proxy.getOverridingMessage());
    }

    @Override
    public String getClassName() {
      return proxy.getClassName();
    }

    @Override
    public StackTraceElementProxy[] getStackTraceElementProxyArray() {
      return proxy.getStackTraceElementProxyArray();
    }

    @Override
    public int getCommonFrames() {
      return proxy.getCommonFrames();
    }

    @Override
    public IThrowableProxy getCause() {
      return proxy.getCause() == null ? null : new OneLineProxy(proxy.getCause());
    }

    @Override
    public IThrowableProxy[] getSuppressed() {
      IThrowableProxy[] suppressed = proxy.getSuppressed();
      if (suppressed == null) {
        return null;
      }
      IThrowableProxy[] wrapped = new IThrowableProxy[suppressed.length];
      for (int i = 0; i < suppressed.length; i++) {
        wrapped[i] = new OneLineProxy(suppressed[i]);
      }
      return wrapped;
    }

    @Override
    public boolean isCyclic() {
      return proxy.isCyclic();
    }
  }

  /**
   * The configuration logback applies by itself: standard error in {@code TENBIN_LOG_FORMAT} (text
   * by default) at INFO, the quiet libraries held back, java.util.logging bridged in.
   */
  @ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
  public static final class Setup extends ContextAwareBase implements Configurator {
    @Override
    public ExecutionStatus configure(LoggerContext context) {
      context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(Level.INFO);
      QUIET.forEach((name, level) -> context.getLogger(name).setLevel(level));
      install(context, Format.fromEnvironment());
      if (!SLF4JBridgeHandler.isInstalled()) {
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
      }
      return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
  }
}
