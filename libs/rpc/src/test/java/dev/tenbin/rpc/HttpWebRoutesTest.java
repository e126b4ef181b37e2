package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.NotFoundException;
import dev.tenbin.rpc.HttpEndpoint.Access;
import dev.tenbin.rpc.HttpEndpoint.Response;
import dev.tenbin.rpc.HttpEndpoint.WebRoute;
import dev.tenbin.rpc.testing.TestService;
import dev.tenbin.testing.rpc.TestHttp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Web routes of the HTTP endpoint: pages and bytes of any content type, prefix routes, query
 * parameters, streamed bodies, HEAD, and the browser session cookie beside the bearer header.
 */
class HttpWebRoutesTest {
  private static final String TOKEN = "0123456789abcdef0123456789abcdef";
  private static final byte[] BIG = new byte[3 * 1024 * 1024 + 17];

  static {
    new Random(3).nextBytes(BIG);
  }

  @TempDir Path tmp;
  private GrpcServerHost host;

  @AfterEach
  void stop() {
    if (host != null) {
      host.close();
    }
  }

  private static List<WebRoute> routes() {
    return List.of(
        WebRoute.get(
            "/page",
            Access.PAGE,
            request -> Response.html("<p>q=" + request.query("q") + request.query().keySet())),
        WebRoute.getPrefix(
            "/items/",
            rest -> rest.startsWith("api/") ? Access.API : Access.PAGE,
            request -> {
              if (request.rest().equals("missing")) {
                throw new NotFoundException("id", "no item 'missing'");
              }
              return Response.html("item " + request.rest());
            }),
        WebRoute.get(
            "/big",
            Access.API,
            request -> Response.stream("application/octet-stream", -1, out -> out.write(BIG))),
        WebRoute.get("/login", Access.OPEN, request -> Response.html("sign in")),
        WebRoute.post(
            "/login",
            Access.OPEN,
            request -> {
              String cookie =
                  request.signIn(request.form().getOrDefault("token", List.of("")).getFirst());
              return cookie == null
                  ? Response.bytes(
                      401, "text/plain", "no".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                  : Response.redirect("/page").withHeader("Set-Cookie", cookie);
            }),
        WebRoute.post(
            "/logout",
            Access.OPEN,
            request -> Response.redirect("/login").withHeader("Set-Cookie", request.signOut())));
  }

  private TestHttp start(ServerSecurity security) {
    host =
        GrpcServerHost.start(
                new ServerSettings("127.0.0.1", 0, 0, 1 << 16, Duration.ofSeconds(10))
                    .withSecurity(security),
                List.of(new TestService()))
            .serveHttp(0, List.of(), routes());
    return TestHttp.plaintext(host.httpPort());
  }

  private static HttpResponse<byte[]> get(TestHttp http, String path, String header, String value)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(http.base() + path)).timeout(Duration.ofSeconds(30));
    if (header != null) {
      request.header(header, value);
    }
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .build()
        .send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void pagesPrefixRoutesQueriesStreamsAndHeadAreServedWithTheirContentTypes() throws Exception {
    TestHttp http = start(ServerSecurity.plaintext());

    HttpResponse<String> page = http.get("/page?q=a%20b&q=c&x");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type")).contains("text/html; charset=utf-8");
    assertThat(page.body()).isEqualTo("<p>q=a b[q, x]");

    assertThat(http.get("/items/abc/def").body()).isEqualTo("item abc/def");
    HttpResponse<String> missing = http.get("/items/missing");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.headers().firstValue("Content-Type")).contains("text/plain; charset=utf-8");
    assertThat(missing.body()).contains("no item 'missing'");
    assertThat(http.get("/nothing").statusCode()).isEqualTo(404);
    HttpResponse<String> post = http.post("/page", "x");
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).contains("GET, HEAD");

    HttpResponse<byte[]> big = get(http, "/big", null, null);
    assertThat(big.statusCode()).isEqualTo(200);
    assertThat(big.body()).isEqualTo(BIG);

    HttpResponse<String> head =
        http.send(
            HttpRequest.newBuilder(URI.create(http.base() + "/page?q=1"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build());
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(head.headers().firstValue("Content-Length")).contains("9");
  }

  @Test
  void withTokensPagesRedirectToLoginApisSay401AndASessionCookieOrTheHeaderLetsThemIn()
      throws Exception {
    Path tokens = Files.writeString(tmp.resolve("tokens"), TOKEN + "\n");
    TestHttp http = start(ServerSecurity.plaintext().withAuthTokenFile(tokens));

    HttpResponse<String> page = http.get("/items/x?y=1");
    assertThat(page.statusCode()).isEqualTo(303);
    assertThat(page.headers().firstValue("Location")).contains("/login?next=%2Fitems%2Fx%3Fy%3D1");
    HttpResponse<byte[]> api = get(http, "/big", null, null);
    assertThat(api.statusCode()).isEqualTo(401);
    HttpResponse<byte[]> underPrefix = get(http, "/items/api/x", null, null);
    assertThat(underPrefix.statusCode()).isEqualTo(401);
    assertThat(new String(underPrefix.body(), java.nio.charset.StandardCharsets.UTF_8))
        .contains("\"authentication_error\"");
    assertThat(http.get("/login").statusCode()).isEqualTo(200);

    HttpResponse<String> wrong =
        http.send(
            HttpRequest.newBuilder(URI.create(http.base() + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=not-the-token-at-all"))
                .build());
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.headers().firstValue("Set-Cookie")).isEmpty();

    HttpResponse<String> login =
        http.send(
            HttpRequest.newBuilder(URI.create(http.base() + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + TOKEN))
                .build());
    assertThat(login.statusCode()).isEqualTo(303);
    String setCookie = login.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(setCookie)
        .startsWith(HttpEndpoint.SESSION_COOKIE + "=")
        .contains("HttpOnly", "SameSite=Strict", "Path=/")
        .doesNotContain("Secure")
        .doesNotContain(TOKEN);
    String cookie = setCookie.substring(0, setCookie.indexOf(';'));

    assertThat(get(http, "/items/x", "Cookie", cookie).statusCode()).isEqualTo(200);
    assertThat(get(http, "/big", "Cookie", "a=b; " + cookie).body()).isEqualTo(BIG);
    assertThat(get(http, "/big", "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
    String forged = HttpEndpoint.SESSION_COOKIE + "=" + "00".repeat(32);
    assertThat(get(http, "/big", "Cookie", forged).statusCode()).isEqualTo(401);
    assertThat(get(http, "/items/x", "Cookie", forged).statusCode()).isEqualTo(303);
    assertThat(get(http, "/items/x", "Cookie", HttpEndpoint.SESSION_COOKIE + "=zz").statusCode())
        .isEqualTo(303);

    HttpResponse<String> logout =
        http.send(
            HttpRequest.newBuilder(URI.create(http.base() + "/logout"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    assertThat(logout.headers().firstValue("Set-Cookie").orElseThrow())
        .startsWith(HttpEndpoint.SESSION_COOKIE + "=;")
        .contains("Max-Age=0");
  }

  @Test
  void twoRoutesOfOneMethodAndPathAreRefused() {
    host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, 0, 1 << 16, Duration.ofSeconds(10)),
            List.of(new TestService()));
    WebRoute page = WebRoute.get("/a", Access.OPEN, request -> Response.html(""));
    assertThatThrownBy(() -> host.serveHttp(0, List.of(), List.of(page, page)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GET /a");
  }
}
