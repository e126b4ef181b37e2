package dev.tenbin.eval.job;

import java.nio.file.Path;
import java.util.List;

/**
 * The folders of an eval service, from its options.
 *
 * @param stateDirectory holds the job table ({@code jobs/}) and the service's lock
 * @param resultsRoot job folders are created only under it; a job's {@code output_dir} is relative
 *     to it
 * @param dataRoots local datasets are read only under these; none means hub datasets only
 */
public record ServiceFolders(Path stateDirectory, Path resultsRoot, List<Path> dataRoots) {
  public ServiceFolders {
    dataRoots = List.copyOf(dataRoots);
  }

  /** The defaults for a state folder: results under {@code <state>/results}, no data root. */
  public static ServiceFolders under(Path stateDirectory) {
    return new ServiceFolders(stateDirectory, stateDirectory.resolve("results"), List.of());
  }
}
