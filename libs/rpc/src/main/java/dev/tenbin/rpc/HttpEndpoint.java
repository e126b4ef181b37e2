package dev.tenbin.rpc;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.tenbin.core.InvalidInputException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JSON over HTTP/1.1 beside a {@link GrpcServerHost}, for clients that do not speak gRPC (the JDK's
 * {@code com.sun.net.httpserver}), and {@linkplain WebRoute web routes} answering any content type
 * (pages, files streamed without being held in memory, downloads; exact or prefix paths, query
 * parameters, {@code HEAD} for {@code GET}) for a browser UI. It is started by {@link
 * GrpcServerHost#serveHttp} and shares what guards the host's gRPC calls: the same bearer tokens
 * ({@link BearerTokens#refusal}, 401), or a browser's session cookie ({@link Access}, {@link
 * BearerTokens#session}), the same admission limit and handler pool ({@link AdmissionControl}: an
 * HTTP call takes one of the {@code --max-concurrent-calls} permits gRPC calls take, or is refused
 * at once with 429 and {@code Retry-After}), the same TLS identity and client CA, reloaded with the
 * files ({@link TlsFiles}), and the same inbound size limit ({@code --max-message-bytes}, 413
 * beyond).
 *
 * <p>A small pool of {@code http-accept-N} threads reads request headers, answers {@code GET
 * /health} (never counted, never refused, no token needed: 200 when serving, 503 while draining),
 * and refuses what is not admitted; admitted calls read their body and run on the host's handler
 * pool. Failures of JSON and {@link Access#API} routes are JSON {@code
 * {"error":{"message","type","param"}}}, those of pages their message as plain text, with the
 * status {@link StatusMapper#toHttp} gives, never a stack trace. On close the endpoint drains:
 * health and new calls answer 503, calls in flight get the grace period, then the listener and
 * threads stop. Answers are counted in {@code tenbin.http.requests} (tags {@code path}, {@code
 * status}).
 */
public final class HttpEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HttpEndpoint.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ACCEPT_THREADS = 4;

  /** The path of the health check. */
  public static final String HEALTH_PATH = "/health";

  /**
   * The work of one route: the request body in, a value Jackson writes as the 200 response out. Bad
   * input is a typed {@code dev.tenbin.core} exception naming the field.
   */
  @FunctionalInterface
  public interface Handler {
    Object handle(byte[] body);
  }

  /**
   * One route.
   *
   * @param method the HTTP method it answers ({@code POST})
   * @param path the exact path ({@code /v1/embeddings})
   * @param handler the work
   * @param params the request's name of a field a core exception names (a core speaks of {@code
   *     texts[2]} where the HTTP request says {@code input[2]}); identity when they agree
   */
  public record Route(String method, String path, Handler handler, UnaryOperator<String> params) {}

  /**
   * Who may call a route when the host requires bearer tokens (with no tokens every route is open,
   * as gRPC is). A token is sent as {@code Authorization: Bearer} or, from a browser, as the
   * session cookie {@link #SESSION_COOKIE} that a sign-in page sets ({@link Request#signIn}).
   */
  public enum Access {
    /** No token needed (a sign-in page). */
    OPEN,
    /** A page a browser navigates to: without a valid token, 303 to {@link #LOGIN_PATH}. */
    PAGE,
    /** Called by programs (JSON, downloads): without a valid token, 401. */
    API
  }

  /** The page a refused {@link Access#PAGE} request is sent to, with {@code ?next=} its path. */
  public static final String LOGIN_PATH = "/login";

  /**
   * The cookie a browser presents instead of the bearer header: an HMAC of one of the host's tokens
   * keyed by its hash ({@link BearerTokens#session}), never the token itself.
   */
  public static final String SESSION_COOKIE = "tenbin_session";

  /** What a {@link WebRoute} is asked. */
  public static final class Request {
    private final String method;
    private final String path;
    private final String rest;
    private final Map<String, List<String>> query;
    private final com.sun.net.httpserver.Headers headers;
    private final byte[] body;
    private final boolean secure;
    private final BearerTokens tokens;

    Request(
        String method,
        String path,
        String rest,
        Map<String, List<String>> query,
        com.sun.net.httpserver.Headers headers,
        byte[] body,
        boolean secure,
        BearerTokens tokens) {
      this.method = method;
      this.path = path;
      this.rest = rest;
      this.query = query;
      this.headers = headers;
      this.body = body;
      this.secure = secure;
      this.tokens = tokens;
    }

    /** {@code GET}, {@code HEAD}, {@code POST}, ... */
    public String method() {
      return method;
    }

    /** The decoded path. */
    public String path() {
      return path;
    }

    /** What follows the route's path for a prefix route ({@code abc} of {@code /jobs/abc}). */
    public String rest() {
      return rest;
    }

    /** The decoded query parameters, in order, each name with all its values. */
    public Map<String, List<String>> query() {
      return query;
    }

    /** The first value of query parameter {@code name}, or null. */
    public String query(String name) {
      List<String> values = query.get(name);
      return values == null || values.isEmpty() ? null : values.getFirst();
    }

    /** The first value of a request header, or null. */
    public String header(String name) {
      return headers.getFirst(name);
    }

    /** The request body (at most {@code --max-message-bytes}). */
    public byte[] body() {
      return body;
    }

    /** The body as {@code application/x-www-form-urlencoded} fields. */
    public Map<String, List<String>> form() {
      return parseQuery(new String(body, StandardCharsets.UTF_8));
    }

    /**
     * The body as {@code multipart/form-data} parts, in order (an HTML form that uploads files).
     *
     * @throws InvalidInputException naming {@code body} when the body is of another type or
     *     malformed
     */
    public List<FormPart> multipart() {
      return MultipartForm.parse(headers.getFirst("Content-Type"), body);
    }

    /** Whether the request came over TLS. */
    public boolean secure() {
      return secure;
    }

    /** Whether the host requires bearer tokens (false: every route is open). */
    public boolean tokensRequired() {
      return tokens != null;
    }

    /**
     * The {@code Set-Cookie} value that signs a browser in with {@code token}, or null when the
     * token is not one of the host's (or the host has none).
     */
    public String signIn(String token) {
      if (tokens == null) {
        return null;
      }
      String session = tokens.session(token);
      return session == null ? null : cookie(session, "Max-Age=43200");
    }

    /** The {@code Set-Cookie} value that signs a browser out. */
    public String signOut() {
      return cookie("", "Max-Age=0");
    }

    private String cookie(String value, String age) {
      return SESSION_COOKIE
          + "="
          + value
          + "; Path=/; HttpOnly; SameSite=Strict; "
          + age
          + (secure ? "; Secure" : "");
    }
  }

  /**
   * A part of a {@code multipart/form-data} body.
   *
   * @param name the form field's name
   * @param fileName the uploaded file's name as the browser gave it ("" for a file input left
   *     empty), or null for a plain field
   * @param contentType the part's content type, or null
   * @param bytes the part's content
   */
  public record FormPart(String name, String fileName, String contentType, byte[] bytes) {
    /** The content as UTF-8 text (a plain field's value). */
    public String text() {
      return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Whether the part is a file input. */
    public boolean isFile() {
      return fileName != null;
    }
  }

  /** A route's answer: its status, content type, extra headers and body. */
  public record Response(
      int status, String contentType, Map<String, String> headers, long length, Body body) {
    /** An HTML document (UTF-8). */
    public static Response html(String html) {
      return bytes(200, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
    }

    /** Bytes of a content type. */
    public static Response bytes(int status, String contentType, byte[] bytes) {
      return new Response(status, contentType, Map.of(), bytes.length, out -> out.write(bytes));
    }

    /** A value Jackson writes as JSON. */
    public static Response json(Object value) {
      try {
        return bytes(200, "application/json", JSON.writeValueAsBytes(value));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * A body written as it is produced (chunked), never held whole in memory; {@code length} is its
     * size when known in advance, else -1.
     */
    public static Response stream(String contentType, long length, Body body) {
      return new Response(200, contentType, Map.of(), length, body);
    }

    /** 303 See Other to {@code location}. */
    public static Response redirect(String location) {
      return new Response(
          303, "text/plain; charset=utf-8", Map.of("Location", location), 0, out -> {});
    }

    /** The same answer with one more header. */
    public Response withHeader(String name, String value) {
      Map<String, String> more = new java.util.LinkedHashMap<>(headers);
      more.put(name, value);
      return new Response(status, contentType, Map.copyOf(more), length, body);
    }
  }

  /**
   * Writes a response body; closed once the answer is sent (or not sent: a {@code HEAD} request, a
   * client gone), so a body that holds a file releases it.
   */
  @FunctionalInterface
  public interface Body extends AutoCloseable {
    void writeTo(OutputStream out) throws IOException;

    @Override
    default void close() throws IOException {}
  }

  /**
   * The work of a {@link WebRoute}. Bad input is a typed {@code dev.tenbin.core} exception (404 for
   * {@code NotFoundException}, 403 for {@code PermissionDeniedException}, ...).
   */
  @FunctionalInterface
  public interface WebHandler {
    Response handle(Request request) throws IOException;
  }

  /**
   * A route that answers any content type: a page, a file, a download.
   *
   * @param method the HTTP method it answers; a {@code GET} route answers {@code HEAD} too (the
   *     same headers, no body)
   * @param path the exact path, or with {@code prefix} the start of the paths it answers (e.g.
   *     {@code /jobs/}: {@link Request#rest} is what follows)
   * @param prefix whether {@code path} is a prefix; an exact route of the same path wins, then the
   *     longest prefix
   * @param access who may call it when the host requires tokens, given {@link Request#rest} ("" for
   *     an exact route): under one prefix, pages and downloads can differ
   * @param handler the work
   */
  public record WebRoute(
      String method,
      String path,
      boolean prefix,
      Function<String, Access> access,
      WebHandler handler) {
    /** An exact {@code GET} route. */
    public static WebRoute get(String path, Access access, WebHandler handler) {
      return new WebRoute("GET", path, false, rest -> access, handler);
    }

    /** A {@code GET} route of every path starting with {@code prefix}. */
    public static WebRoute getPrefix(
        String prefix, Function<String, Access> access, WebHandler handler) {
      return new WebRoute("GET", prefix, true, access, handler);
    }

    /** An exact {@code POST} route. */
    public static WebRoute post(String path, Access access, WebHandler handler) {
      return new WebRoute("POST", path, false, rest -> access, handler);
    }
  }

  /** A route as the endpoint dispatches it: JSON and API routes answer JSON errors, pages text. */
  private record Entry(
      String method,
      String path,
      boolean prefix,
      Function<String, Access> access,
      WebHandler handler,
      UnaryOperator<String> params,
      boolean json) {
    boolean answers(String requestMethod) {
      return method.equals(requestMethod) || ("GET".equals(method) && "HEAD".equals(requestMethod));
    }

    String rest(String requestPath) {
      return prefix ? requestPath.substring(path.length()) : "";
    }

    Access accessOf(String requestPath) {
      return access.apply(rest(requestPath));
    }

    boolean jsonErrors(String requestPath) {
      return json || accessOf(requestPath) == Access.API;
    }
  }

  /** What the endpoint shares with its host. */
  record Guards(
      AdmissionControl admission,
      BearerTokens tokens,
      Runnable onUnauthenticated,
      TlsFiles tls,
      boolean mutualTls,
      int maxBodyBytes,
      MeterRegistry registry) {}

  private final HttpServer server;
  private final ExecutorService accept;
  private final Guards guards;
  private final Map<String, List<Entry>> exact;
  private final List<Entry> prefixes;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;

  private HttpEndpoint(
      HttpServer server, ExecutorService accept, Guards guards, List<Entry> entries) {
    this.server = server;
    this.accept = accept;
    this.guards = guards;
    Map<String, List<Entry>> byPath = new java.util.HashMap<>();
    List<Entry> byPrefix = new java.util.ArrayList<>();
    for (Entry entry : entries) {
      if (entry.prefix()) {
        byPrefix.add(entry);
      } else {
        byPath.computeIfAbsent(entry.path(), p -> new java.util.ArrayList<>()).add(entry);
      }
    }
    byPrefix.sort(java.util.Comparator.comparingInt((Entry e) -> e.path().length()).reversed());
    this.exact = Map.copyOf(byPath);
    this.prefixes = List.copyOf(byPrefix);
  }

  static HttpEndpoint start(String host, int port, Guards guards, List<Route> routes) {
    return start(host, port, guards, routes, List.of());
  }

  static HttpEndpoint start(
      String host, int port, Guards guards, List<Route> routes, List<WebRoute> webRoutes) {
    List<Entry> entries = new java.util.ArrayList<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (Route route : routes) {
      entries.add(
          new Entry(
              route.method(),
              route.path(),
              false,
              rest -> Access.API,
              request -> Response.json(route.handler().handle(request.body())),
              route.params(),
              true));
    }
    for (WebRoute route : webRoutes) {
      entries.add(
          new Entry(
              route.method(),
              route.path(),
              route.prefix(),
              route.access(),
              route.handler(),
              UnaryOperator.identity(),
              false));
    }
    for (Entry entry : entries) {
      if (!seen.add(entry.method() + " " + entry.path() + (entry.prefix() ? "*" : ""))) {
        throw new IllegalArgumentException(
            "two HTTP routes answer " + entry.method() + " " + entry.path());
      }
      if (HEALTH_PATH.equals(entry.path()) || !entry.path().startsWith("/")) {
        throw new IllegalArgumentException("not a route's path: " + entry.path());
      }
    }
    AtomicInteger count = new AtomicInteger();
    ExecutorService accept =
        new ThreadPoolExecutor(
            ACCEPT_THREADS,
            ACCEPT_THREADS,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            runnable -> {
              Thread thread = new Thread(runnable, "http-accept-" + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    HttpServer server;
    try {
      InetSocketAddress address = new InetSocketAddress(host, port);
      if (guards.tls() != null) {
        HttpsServer https = HttpsServer.create(address, 0);
        https.setHttpsConfigurator(configurator(guards));
        server = https;
      } else {
        server = HttpServer.create(address, 0);
      }
    } catch (IOException e) {
      accept.shutdownNow();
      throw new UncheckedIOException(
          "cannot bind the HTTP endpoint on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    HttpEndpoint endpoint = new HttpEndpoint(server, accept, guards, entries);
    server.createContext("/", endpoint::arrive);
    server.setExecutor(accept);
    server.start();
    return endpoint;
  }

  /** TLS from the host's key manager (and client CA), so a reloaded certificate serves both. */
  private static HttpsConfigurator configurator(Guards guards) {
    SSLContext context;
    try {
      context = SSLContext.getInstance("TLS");
      TrustManager[] trust =
          guards.mutualTls() ? new TrustManager[] {guards.tls().trustManager()} : null;
      context.init(new KeyManager[] {guards.tls().keyManager()}, trust, null);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up TLS for HTTP: " + e.getMessage(), e);
    }
    return new HttpsConfigurator(context) {
      @Override
      public void configure(HttpsParameters parameters) {
        SSLParameters ssl = getSSLContext().getDefaultSSLParameters();
        ssl.setNeedClientAuth(guards.mutualTls());
        parameters.setSSLParameters(ssl);
      }
    };
  }

  /** The bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** The routes of a path: the exact ones, else those of its longest matching prefix. */
  private List<Entry> routesOf(String path) {
    List<Entry> found = exact.get(path);
    if (found != null) {
      return found;
    }
    for (Entry entry : prefixes) {
      if (path.startsWith(entry.path())) {
        String start = entry.path();
        return prefixes.stream().filter(e -> e.path().equals(start)).toList();
      }
    }
    return List.of();
  }

  /** Runs on an accept thread once the request line and headers are read. */
  private void arrive(HttpExchange exchange) throws IOException {
    try {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      if (HEALTH_PATH.equals(path)) {
        health(exchange, method);
        return;
      }
      List<Entry> candidates = routesOf(path == null ? "" : path);
      if (candidates.isEmpty()) {
        error(exchange, 404, "not_found_error", "no such path: " + path, null, null, true, "other");
        return;
      }
      Entry route =
          candidates.stream().filter(entry -> entry.answers(method)).findFirst().orElse(null);
      if (route == null) {
        String allowed =
            candidates.stream()
                .map(e -> "GET".equals(e.method()) ? "GET, HEAD" : e.method())
                .collect(Collectors.joining(", "));
        Entry first = candidates.getFirst();
        exchange.getResponseHeaders().set("Allow", allowed);
        error(
            exchange,
            405,
            "invalid_request_error",
            path + " takes " + allowed,
            null,
            null,
            first.jsonErrors(path),
            first.path());
        return;
      }
      if (draining) {
        error(
            exchange,
            503,
            "service_unavailable",
            "the server is shutting down",
            null,
            retry(),
            route.jsonErrors(path),
            route.path());
        return;
      }
      Access access = route.accessOf(path);
      if (guards.tokens() != null && access != Access.OPEN) {
        String refusal = refusal(exchange);
        if (refusal != null) {
          guards.onUnauthenticated().run();
          if (access == Access.PAGE) {
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            exchange.getResponseHeaders().set("Location", loginRedirect(exchange));
            respond(exchange, 303, route.path(), "text/plain; charset=utf-8", new byte[0]);
          } else {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
            error(
                exchange,
                401,
                "authentication_error",
                refusal,
                null,
                null,
                route.jsonErrors(path),
                route.path());
          }
          return;
        }
      }
      if (!guards.admission().tryAdmit()) {
        error(
            exchange,
            429,
            "rate_limit_error",
            guards.admission().busyMessage(),
            null,
            guards.admission().retryAfter(),
            route.jsonErrors(path),
            route.path());
        return;
      }
      inFlight.incrementAndGet();
      try {
        guards.admission().handlers().execute(() -> serve(exchange, route));
      } catch (RejectedExecutionException e) {
        finished();
        error(
            exchange,
            503,
            "service_unavailable",
            "the server is shutting down",
            null,
            retry(),
            route.jsonErrors(path),
            route.path());
      }
    } catch (IOException | RuntimeException e) {
      log.debug("HTTP exchange failed before it was served: {}", e.toString());
      exchange.close();
    }
  }

  /**
   * Why the request is refused, or null: the bearer header when it has one (checked as on the gRPC
   * side), else the session cookie.
   */
  private String refusal(HttpExchange exchange) {
    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
    if (authorization == null) {
      String session = cookie(exchange, SESSION_COOKIE);
      if (session != null && !session.isEmpty()) {
        return guards.tokens().acceptsSession(session) ? null : "invalid or expired session";
      }
    }
    return guards.tokens().refusal(authorization);
  }

  /** The value of cookie {@code name}, or null. */
  private static String cookie(HttpExchange exchange, String name) {
    for (String header : exchange.getRequestHeaders().getOrDefault("Cookie", List.of())) {
      for (String pair : header.split(";")) {
        int equals = pair.indexOf('=');
        if (equals > 0 && pair.substring(0, equals).strip().equals(name)) {
          return pair.substring(equals + 1).strip();
        }
      }
    }
    return null;
  }

  /** {@code /login?next=<the path and query asked for>}. */
  private static String loginRedirect(HttpExchange exchange) {
    String asked = exchange.getRequestURI().getRawPath();
    String query = exchange.getRequestURI().getRawQuery();
    if (query != null) {
      asked += "?" + query;
    }
    return LOGIN_PATH + "?next=" + URLEncoder.encode(asked, StandardCharsets.UTF_8);
  }

  /** Runs on a handler thread, holding an admission permit. */
  private void serve(HttpExchange exchange, Entry route) {
    String path = exchange.getRequestURI().getPath();
    try {
      byte[] body = readBody(exchange);
      Request request =
          new Request(
              exchange.getRequestMethod(),
              path,
              route.rest(path),
              parseQuery(exchange.getRequestURI().getRawQuery()),
              exchange.getRequestHeaders(),
              body,
              guards.tls() != null,
              guards.tokens());
      Response response = route.handler().handle(request);
      send(exchange, route.path(), response);
    } catch (IOException e) {
      log.debug("HTTP exchange failed: {}", e.toString());
      exchange.close();
    } catch (RuntimeException e) {
      StatusMapper.HttpFailure failure = StatusMapper.toHttp(e);
      String field = failure.field() == null ? null : route.params().apply(failure.field());
      try {
        if (failure.status() == 413) {
          exchange.getResponseHeaders().set("Connection", "close");
        }
        error(
            exchange,
            failure.status(),
            failure.type(),
            failure.message(),
            field,
            failure.retryAfter(),
            route.jsonErrors(path),
            route.path());
      } catch (IOException | RuntimeException io) {
        // the answer had started (a download broken mid-way): the connection is dropped
        exchange.close();
      }
    } finally {
      finished();
    }
  }

  /** Sends a route's answer; a {@code HEAD} request gets the headers only. */
  private void send(HttpExchange exchange, String routePath, Response response) throws IOException {
    try (Body body = response.body()) {
      count(routePath, response.status());
      response.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
      exchange.getResponseHeaders().set("Content-Type", response.contentType());
      exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
      boolean head = "HEAD".equals(exchange.getRequestMethod());
      if (head) {
        if (response.length() >= 0) {
          exchange.getResponseHeaders().set("Content-Length", Long.toString(response.length()));
        }
        exchange.sendResponseHeaders(response.status(), -1);
        exchange.close();
        return;
      }
      // 0: chunked, for a body whose size is not known in advance
      long length = response.length() == 0 ? -1 : response.length() < 0 ? 0 : response.length();
      exchange.sendResponseHeaders(response.status(), length);
      try (OutputStream out = exchange.getResponseBody()) {
        body.writeTo(out);
      }
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  /** Query parameters ({@code a=1&b=x%20y}) decoded, in order; a name without '=' has "". */
  static Map<String, List<String>> parseQuery(String raw) {
    Map<String, List<String>> query = new java.util.LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return query;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int equals = pair.indexOf('=');
      String name = equals < 0 ? pair : pair.substring(0, equals);
      String value = equals < 0 ? "" : pair.substring(equals + 1);
      try {
        query
            .computeIfAbsent(
                URLDecoder.decode(name, StandardCharsets.UTF_8), n -> new java.util.ArrayList<>())
            .add(URLDecoder.decode(value, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        throw new InvalidInputException("query", "malformed query parameter " + pair);
      }
    }
    return query;
  }

  private void finished() {
    guards.admission().release();
    synchronized (inFlight) {
      inFlight.decrementAndGet();
      inFlight.notifyAll();
    }
  }

  /** The body, at most {@code --max-message-bytes}; beyond is 413 (the connection is closed). */
  private byte[] readBody(HttpExchange exchange) throws IOException {
    int max = guards.maxBodyBytes();
    String declared = exchange.getRequestHeaders().getFirst("Content-Length");
    if (declared != null) {
      long length;
      try {
        length = Long.parseLong(declared.strip());
      } catch (NumberFormatException e) {
        length = -1;
      }
      if (length > max) {
        throw tooLarge(length, max);
      }
    }
    try (InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readNBytes(max + 1);
      if (body.length > max) {
        throw tooLarge(body.length, max);
      }
      return body;
    }
  }

  private static InvalidInputException tooLarge(long bytes, int max) {
    return InvalidInputException.tooLarge(
        null,
        "the request body has "
            + (bytes > max ? "more than " + max : bytes)
            + " bytes; the limit is "
            + max
            + " (--max-message-bytes)");
  }

  private void health(HttpExchange exchange, String method) throws IOException {
    if (!"GET".equals(method) && !"HEAD".equals(method)) {
      exchange.getResponseHeaders().set("Allow", "GET, HEAD");
      error(
          exchange,
          405,
          "invalid_request_error",
          HEALTH_PATH + " takes GET",
          null,
          null,
          true,
          HEALTH_PATH);
      return;
    }
    ObjectNode body = JSON.createObjectNode().put("status", draining ? "draining" : "serving");
    respond(
        exchange,
        draining ? 503 : 200,
        HEALTH_PATH,
        "application/json",
        JSON.writeValueAsBytes(body));
  }

  private static Duration retry() {
    return dev.tenbin.core.OverloadedException.DEFAULT_RETRY_AFTER;
  }

  /** A failure: JSON {@code {"error":{...}}} for programs, the message as plain text for pages. */
  private void error(
      HttpExchange exchange,
      int status,
      String type,
      String message,
      String param,
      Duration retryAfter,
      boolean json,
      String routePath)
      throws IOException {
    if (retryAfter != null) {
      long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
      exchange.getResponseHeaders().set("Retry-After", Long.toString(seconds));
    }
    if (!json) {
      respond(
          exchange,
          status,
          routePath,
          "text/plain; charset=utf-8",
          (status + " " + message + "\n").getBytes(StandardCharsets.UTF_8));
      return;
    }
    ObjectNode error = JSON.createObjectNode();
    error.putObject("error").put("message", message).put("type", type).put("param", param);
    respond(exchange, status, routePath, "application/json", JSON.writeValueAsBytes(error));
  }

  private void count(String routePath, int status) {
    Counter.builder("tenbin.http.requests")
        .description("HTTP requests answered, by route and status")
        .tag("path", routePath)
        .tag("status", Integer.toString(status))
        .register(guards.registry())
        .increment();
  }

  /** Answers bytes, counted under the route's path ({@code other} for no route). */
  private void respond(
      HttpExchange exchange, int status, String routePath, String contentType, byte[] body)
      throws IOException {
    count(routePath, status);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    boolean head = "HEAD".equals(exchange.getRequestMethod());
    exchange.sendResponseHeaders(status, head || body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      if (!head) {
        out.write(body);
      }
    }
  }

  /** Health and new calls answer 503 from now on; calls in flight go on. */
  void beginDrain() {
    draining = true;
  }

  /** Waits up to {@code grace} for the calls in flight to finish; true when none is left. */
  boolean awaitIdle(Duration grace) throws InterruptedException {
    long deadline = System.nanoTime() + grace.toNanos();
    synchronized (inFlight) {
      while (inFlight.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(inFlight, left);
      }
    }
    return true;
  }

  /** Drains (no grace) and stops: the listener closes, open connections are dropped. */
  @Override
  public void close() {
    draining = true;
    server.stop(0);
    accept.shutdownNow();
  }
}
