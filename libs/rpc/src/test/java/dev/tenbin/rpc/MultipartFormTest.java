package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code multipart/form-data} bodies as browsers send them, and bodies that are not. */
class MultipartFormTest {
  private static final String TYPE = "multipart/form-data; boundary=XyZ";

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void fieldsAndFilesComeBackInOrderWithTheirBytes() {
    String body =
        "--XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nhand made ü\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"run\"; filename=\"a b.trec\"\r\n"
            + "Content-Type: text/plain\r\n\r\nq1 Q0 d1 1 1.0 t\r\n\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"empty\"; filename=\"\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n\r\n"
            + "--XyZ--\r\n";
    List<HttpEndpoint.FormPart> parts = MultipartForm.parse(TYPE, utf8(body));
    assertThat(parts)
        .extracting(HttpEndpoint.FormPart::name)
        .containsExactly("name", "run", "empty");
    assertThat(parts.get(0).isFile()).isFalse();
    assertThat(parts.get(0).text()).isEqualTo("hand made ü");
    assertThat(parts.get(1).isFile()).isTrue();
    assertThat(parts.get(1).fileName()).isEqualTo("a b.trec");
    assertThat(parts.get(1).contentType()).isEqualTo("text/plain");
    // the line break before the boundary belongs to the boundary, the one inside to the file
    assertThat(parts.get(1).text()).isEqualTo("q1 Q0 d1 1 1.0 t\r\n");
    assertThat(parts.get(2).isFile()).isTrue();
    assertThat(parts.get(2).fileName()).isEmpty();
    assertThat(parts.get(2).bytes()).isEmpty();
  }

  @Test
  void aBodyOfAnotherTypeOrMalformedIsRefusedNamingTheBody() {
    assertThatThrownBy(() -> MultipartForm.parse("application/x-www-form-urlencoded", utf8("a=1")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("multipart/form-data")
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("body");
    assertThatThrownBy(() -> MultipartForm.parse(null, utf8("a=1")))
        .isInstanceOf(InvalidInputException.class);
    // no closing boundary: the stream ends inside a part
    assertThatThrownBy(
            () ->
                MultipartForm.parse(
                    TYPE, utf8("--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nnever")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("cannot be read");
    assertThatThrownBy(() -> MultipartForm.parse("multipart/form-data", utf8("--XyZ--\r\n")))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void moreThanTheMostPartsIsRefused() {
    StringBuilder body = new StringBuilder();
    for (int i = 0; i <= MultipartForm.MAX_PARTS; i++) {
      body.append("--XyZ\r\nContent-Disposition: form-data; name=\"f")
          .append(i)
          .append("\"\r\n\r\nv\r\n");
    }
    body.append("--XyZ--\r\n");
    assertThatThrownBy(() -> MultipartForm.parse(TYPE, utf8(body.toString())))
        .isInstanceOf(InvalidInputException.class);
  }
}
