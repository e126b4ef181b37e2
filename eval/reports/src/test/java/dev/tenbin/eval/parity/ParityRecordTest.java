package dev.tenbin.eval.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.leaderboard.ReportFormat;
import dev.tenbin.eval.testing.SyntheticCells;
import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.PairedTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParityRecordTest {
  @TempDir Path job;

  private static ServingParity.Certificate certificate() {
    PairedTest test =
        new PairedTest(200, 0.003, 0.05, new Interval(-0.0046, 0.0105), 0.8, 0.44, 0.51, false);
    return new ServingParity.Certificate(
        "xquad-en",
        200,
        240,
        "embedded, model m, batch 32",
        "embedded, model m-q, batch 32",
        94.84,
        95.14,
        test,
        0.30,
        -0.46,
        1.05,
        139,
        198,
        new ServingParity.VectorAgreement(240, 0.995225, 0.997066, 0.023, 0),
        new ServingParity.VectorAgreement(200, 0.99167, 0.995776, 0.025, 0));
  }

  @Test
  void aCertificateInAJobsParityFolderIsReadBackAndShownWithItsLeaderboards() throws Exception {
    Files.createDirectories(job.resolve(ParityRecord.FOLDER));
    Files.writeString(
        job.resolve("parity/int8.json"), ParityRecord.toJson(certificate()).toPrettyString());

    List<ParityRecord> records = ParityRecord.readAll(job);

    assertThat(records).hasSize(1);
    ParityRecord record = records.getFirst();
    assertThat(record.file()).isEqualTo("int8.json");
    assertThat(record.delta()).isEqualTo(0.30);
    assertThat(record.deltaLow()).isEqualTo(-0.46);
    assertThat(record.randomizationP()).isEqualTo(0.51);
    assertThat(record.top10ChangedAsSet()).isEqualTo(139);
    assertThat(record.documentMinCosine()).isEqualTo(0.995225);
    assertThat(record.identical()).isFalse();

    Leaderboard board =
        Leaderboard.of(
            List.of(SyntheticCells.cell("b", "t", "dense:m", "base", 0.5).build()),
            LeaderboardOptions.defaults().withParity(records));
    assertThat(ReportFormat.MARKDOWN.render(board))
        .contains("## Serving parity")
        .contains("| xquad-en | embedded, model m, batch 32 | embedded, model m-q, batch 32 |")
        .contains("+0.30 (-0.46 to +1.05)", "139 / 198 of 200", "0.9952 / 0.9971", "differs");
    assertThat(ReportFormat.JSON.render(board)).contains("\"file\" : \"int8.json\"");
  }

  @Test
  void aJobWithoutCertificatesHasNoneAndAFileThatIsNotOneIsRefused() throws Exception {
    assertThat(ParityRecord.readAll(job)).isEmpty();
    Files.createDirectories(job.resolve(ParityRecord.FOLDER));
    Files.writeString(job.resolve("parity/x.json"), "{\"dataset\": \"x\"}");
    assertThatThrownBy(() -> ParityRecord.readAll(job))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("x.json is not a parity certificate");
  }
}
