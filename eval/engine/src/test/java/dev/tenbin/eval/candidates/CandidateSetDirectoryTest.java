package dev.tenbin.eval.candidates;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where candidate sets go when no folder is named. */
class CandidateSetDirectoryTest {
  @TempDir Path tmp;

  @Test
  void setsGoUnderTheCacheFolderKeyedByTheDatasetsPath() throws Exception {
    Path cache = tmp.resolve("cache");
    Path first = Files.createDirectories(tmp.resolve("a/scifact"));
    Path second = Files.createDirectories(tmp.resolve("b/scifact"));

    Path firstSets = CandidateSet.defaultDirectory(first, cache);
    Path secondSets = CandidateSet.defaultDirectory(second, cache);

    assertThat(firstSets.getParent()).isEqualTo(cache.resolve("candidates"));
    assertThat(firstSets.getFileName().toString()).matches("scifact-[0-9a-f]{12}");
    assertThat(secondSets).isNotEqualTo(firstSets);
    // The same folder, however it is spelt, gets the same sets.
    assertThat(CandidateSet.defaultDirectory(tmp.resolve("a/../a/scifact"), cache))
        .isEqualTo(firstSets);
    assertThat(first.resolve("candidates")).doesNotExist();
  }

  @Test
  void aDatasetThatAlreadyHasACandidatesFolderKeepsItsSetsThere() throws Exception {
    Path dataset = Files.createDirectories(tmp.resolve("scifact/candidates")).getParent();
    assertThat(CandidateSet.defaultDirectory(dataset, tmp.resolve("cache")))
        .isEqualTo(dataset.resolve("candidates"));
  }
}
