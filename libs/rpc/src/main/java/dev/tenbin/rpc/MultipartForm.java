package dev.tenbin.rpc;

import dev.tenbin.core.InvalidInputException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.fileupload2.core.AbstractFileUpload;
import org.apache.commons.fileupload2.core.DiskFileItem;
import org.apache.commons.fileupload2.core.DiskFileItemFactory;
import org.apache.commons.fileupload2.core.FileItemInput;
import org.apache.commons.fileupload2.core.FileItemInputIterator;
import org.apache.commons.fileupload2.core.RequestContext;

/**
 * A {@code multipart/form-data} body (an HTML form with a file input) split into its parts by
 * Commons FileUpload's streaming parser. The body is already in memory, bounded by the endpoint's
 * {@code --max-message-bytes}; nothing is written to disk.
 */
final class MultipartForm {
  /** The most parts one form may have. */
  static final int MAX_PARTS = 64;

  private MultipartForm() {}

  /**
   * The parts of {@code body}, in order.
   *
   * @param contentType the request's {@code Content-Type} (with its boundary)
   * @throws InvalidInputException naming {@code body} when the body is not a well-formed
   *     multipart/form-data body
   */
  static List<HttpEndpoint.FormPart> parse(String contentType, byte[] body) {
    if (contentType == null
        || !contentType
            .toLowerCase(java.util.Locale.ROOT)
            .startsWith(AbstractFileUpload.MULTIPART_FORM_DATA)) {
      throw new InvalidInputException(
          "body",
          "the body must be multipart/form-data (an HTML form with enctype=multipart/form-data),"
              + " not "
              + (contentType == null ? "a body without a Content-Type" : contentType));
    }
    Parser parser = new Parser();
    parser.setFileCountMax(MAX_PARTS);
    parser.setHeaderCharset(StandardCharsets.UTF_8);
    List<HttpEndpoint.FormPart> parts = new ArrayList<>();
    try {
      FileItemInputIterator items = parser.getItemIterator(new Upload(contentType, body));
      while (items.hasNext()) {
        FileItemInput item = items.next();
        if (parts.size() == MAX_PARTS) {
          throw new InvalidInputException("body", "the form has more than " + MAX_PARTS + " parts");
        }
        byte[] bytes;
        try (InputStream in = item.getInputStream()) {
          bytes = in.readAllBytes();
        }
        parts.add(
            new HttpEndpoint.FormPart(
                item.getFieldName() == null ? "" : item.getFieldName(),
                item.isFormField() ? null : item.getName() == null ? "" : item.getName(),
                item.getContentType(),
                bytes));
      }
    } catch (IOException e) {
      throw new InvalidInputException(
          "body", "the multipart/form-data body cannot be read: " + e.getMessage());
    }
    return parts;
  }

  /** A body to split: its content type and bytes. */
  private record Upload(String contentType, byte[] body) {}

  /** The parser of an {@link Upload}; only its streaming iterator is used. */
  private static final class Parser
      extends AbstractFileUpload<Upload, DiskFileItem, DiskFileItemFactory> {
    @Override
    public FileItemInputIterator getItemIterator(Upload upload) throws IOException {
      return getItemIterator((RequestContext) new BodyContext(upload.contentType(), upload.body()));
    }

    @Override
    public java.util.Map<String, List<DiskFileItem>> parseParameterMap(Upload upload) {
      throw new UnsupportedOperationException("parts are read as streams only");
    }

    @Override
    public List<DiskFileItem> parseRequest(Upload upload) {
      throw new UnsupportedOperationException("parts are read as streams only");
    }
  }

  /** A body already read, with its content type. */
  private record BodyContext(String contentType, byte[] body) implements RequestContext {
    @Override
    public String getCharacterEncoding() {
      return StandardCharsets.UTF_8.name();
    }

    @Override
    public long getContentLength() {
      return body.length;
    }

    @Override
    public String getContentType() {
      return contentType;
    }

    @Override
    public InputStream getInputStream() {
      return new ByteArrayInputStream(body);
    }

    @Override
    public boolean isMultipartRelated() {
      return false;
    }
  }
}
