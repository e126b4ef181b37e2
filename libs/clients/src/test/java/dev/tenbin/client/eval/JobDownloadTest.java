package dev.tenbin.client.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Whatever a service lists, a download writes only inside the folder it was given. */
class JobDownloadTest {
  @Test
  void aListedPathThatWouldLeaveTheFolderIsRefused() {
    Path into = Path.of("/tmp/copy");
    assertThat(JobDownload.target(into, "cells/a.cell.json"))
        .isEqualTo(Path.of("/tmp/copy/cells/a.cell.json"));
    for (String path : new String[] {"../x", "cells/../../x", "/etc/passwd", "", "."}) {
      assertThatThrownBy(() -> JobDownload.target(into, path))
          .as(path)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("outside the job's folder");
    }
  }
}
