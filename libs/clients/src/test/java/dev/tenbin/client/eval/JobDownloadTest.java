package dev.tenbin.client.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Whatever a service lists, a download writes only inside the folder it was given. */
class JobDownloadTest {
  @Test
  void aListedPathThatWouldLeaveTheFolderIsRefused() {
    assertThat(JobDownload.names("cells/a.cell.json")).containsExactly("cells", "a.cell.json");
    for (String path :
        new String[] {"../x", "cells/../../x", "/etc/passwd", "", ".", "cells//a", "a\\..\\b"}) {
      assertThatThrownBy(() -> JobDownload.names(path))
          .as(path)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("outside the job's folder");
    }
  }
}
