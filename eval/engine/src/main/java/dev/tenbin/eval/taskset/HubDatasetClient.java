package dev.tenbin.eval.taskset;

import dev.tenbin.core.FailureReasons;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.taskset.DatasetSource.HubDataset;
import dev.tenbin.model.hub.HubAccess;
import dev.tenbin.model.hub.HubClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Downloads the files of a task from a dataset repository on a Hugging Face hub, at a pinned
 * revision.
 *
 * <p>The revision (branch, tag or commit) is resolved with {@code GET
 * {endpoint}/api/datasets/{repo}/revision/{revision}}, which answers the commit {@code sha} and the
 * repository's files ({@code siblings}). For each of the roles corpus, queries, qrels and the
 * optional spans the files of the task's config and split are chosen by {@link HubFileSelector}'s
 * rule (in short: {@code C/S-*.parquet}, {@code C/S.parquet}, {@code data/C/S-*.parquet}, {@code
 * C/S.jsonl}, {@code C/S.jsonl.gz}, {@code C/S-*.jsonl}, {@code C.jsonl}, and for qrels also {@code
 * .tsv}) and fetched from {@code {endpoint}/datasets/{repo}/resolve/{sha}/{path}} into {@code
 * {cache}/datasets/{repo}/{sha}/{path}}, each written to a temporary file and renamed into place.
 * Files already there are not fetched again. {@code resolved.json} ({@link HubManifest}) records
 * the repository, the revision asked for, the commit, the files and their sizes, and the download
 * time.
 *
 * <p>A revision that is a full 40-hex commit SHA, once its manifest is present, loads without any
 * request; a branch or tag is resolved again on each load (one small request) and reuses the files.
 */
public final class HubDatasetClient {
  private final HubClient hub;
  private final String endpoint;
  private final Path cacheDirectory;

  /**
   * @param endpoint the hub's base URL, e.g. {@code https://huggingface.co}
   * @param cacheDirectory where snapshots are kept, under {@code datasets/}
   * @param token sent as {@code Authorization: Bearer} when not null or blank
   */
  public HubDatasetClient(String endpoint, Path cacheDirectory, String token) {
    this(new HubAccess(endpoint, token), cacheDirectory);
  }

  public HubDatasetClient(HubAccess access, Path cacheDirectory) {
    this.hub = new HubClient(access);
    this.endpoint = hub.endpoint();
    this.cacheDirectory = cacheDirectory;
  }

  /** A client for this process's environment ({@code HF_ENDPOINT}, {@code HF_TOKEN}). */
  public static HubDatasetClient fromEnvironment(Path cacheDirectory) {
    return new HubDatasetClient(HubAccess.fromEnvironment(), cacheDirectory);
  }

  public static HubDatasetClient fromEnvironment(
      Map<String, String> environment, Path cacheDirectory) {
    return new HubDatasetClient(HubAccess.fromEnvironment(environment), cacheDirectory);
  }

  public String endpoint() {
    return endpoint;
  }

  /** The snapshot folder of {@code repository} at commit {@code sha}. */
  public Path snapshotDirectory(String repository, String sha) {
    return cacheDirectory.resolve("datasets").resolve(repository).resolve(sha);
  }

  /**
   * Downloads (or finds in the cache) the corpus, queries and qrels files of {@code source}, and
   * its spans files when the repository has them.
   */
  public HubSnapshot fetch(HubDataset source) {
    HubManifest manifest =
        HubClient.isCommit(source.revision())
            ? HubManifest.read(snapshotDirectory(source.repository(), source.revision()))
            : null;
    if (manifest == null) {
      manifest = resolve(source);
    }
    Path snapshot = snapshotDirectory(source.repository(), manifest.sha());
    Map<String, List<String>> hubPaths = new LinkedHashMap<>();
    Map<String, List<Path>> files = new LinkedHashMap<>();
    Map<String, Long> sizes = new LinkedHashMap<>(manifest.files());
    boolean downloaded = false;
    for (String role : HubDataset.allRoles()) {
      List<String> selected =
          HubDataset.ROLES.contains(role)
              ? select(source, manifest, role)
              : HubFileSelector.select(
                  manifest.siblings(), role, source.config(role), source.split(), source.format());
      if (selected.isEmpty()) {
        continue; // an optional role the repository does not have
      }
      List<Path> local = new ArrayList<>();
      for (String path : selected) {
        Path target = localPath(snapshot, path);
        if (!Files.isRegularFile(target)) {
          download(source.repository(), manifest.sha(), path, target);
          downloaded = true;
        }
        sizes.put(path, size(target));
        local.add(target);
      }
      hubPaths.put(role, selected);
      files.put(role, local);
    }
    boolean revisionChanged = !manifest.revision().equals(source.revision());
    if (downloaded
        || revisionChanged
        || !Files.isRegularFile(snapshot.resolve(HubManifest.FILE_NAME))) {
      String when = downloaded ? Instant.now().toString() : manifest.downloadedAt();
      new HubManifest(
              source.repository(),
              source.revision(),
              manifest.sha(),
              manifest.siblings(),
              sizes,
              when)
          .write(snapshot);
    }
    return new HubSnapshot(
        source.repository(), source.revision(), manifest.sha(), snapshot, files, hubPaths);
  }

  private static List<String> select(HubDataset source, HubManifest manifest, String role) {
    String config = source.config(role);
    List<String> selected =
        HubFileSelector.select(manifest.siblings(), role, config, source.split(), source.format());
    if (selected.isEmpty()) {
      throw new InvalidInputException(
          "source.split",
          "hub dataset "
              + source.repository()
              + "@"
              + manifest.sha()
              + " has no "
              + role
              + " file for config '"
              + config
              + "' and split '"
              + source.split()
              + "' (looked for "
              + String.join(
                  ", ", HubFileSelector.patterns(role, config, source.split(), source.format()))
              + ")");
    }
    return selected;
  }

  /** Asks the hub which commit the revision names and which files the repository has there. */
  private HubManifest resolve(HubDataset source) {
    HubClient.Revision revision;
    try {
      revision =
          hub.revision(HubClient.RepositoryKind.DATASET, source.repository(), source.revision());
    } catch (HubClient.HubStatusException e) {
      throw failure(e, source);
    } catch (UncheckedIOException e) {
      throw unreachable(e);
    }
    HubManifest known = HubManifest.read(snapshotDirectory(source.repository(), revision.sha()));
    Map<String, Long> files = known == null ? Map.of() : known.files();
    String downloadedAt = known == null ? "" : known.downloadedAt();
    return new HubManifest(
        source.repository(),
        source.revision(),
        revision.sha(),
        revision.files(),
        files,
        downloadedAt);
  }

  private void download(String repository, String sha, String path, Path target) {
    boolean found;
    try {
      found = hub.download(HubClient.RepositoryKind.DATASET, repository, sha, path, target);
    } catch (HubClient.HubStatusException e) {
      throw failure(e, null);
    } catch (UncheckedIOException e) {
      throw unreachable(e);
    }
    if (!found) {
      throw new IllegalStateException(
          "the hub listed "
              + path
              + " in dataset "
              + repository
              + "@"
              + sha
              + " but has no such file");
    }
  }

  /**
   * A hub answer other than 2xx. For the revision ({@code source} given) 404 and 401/403 are the
   * caller's mistake (an unknown, gated or private repository or revision); anything else is a
   * failure naming the URL.
   */
  private RuntimeException failure(HubClient.HubStatusException e, HubDataset source) {
    int status = e.status();
    if (source != null && status == 404) {
      return new InvalidInputException(
          "source.revision",
          "the hub at "
              + endpoint
              + " has no dataset "
              + source.repository()
              + " at revision '"
              + source.revision()
              + "' (HTTP 404 from "
              + e.url()
              + ")");
    }
    if (source != null && (status == 401 || status == 403)) {
      return new InvalidInputException(
          "source.hub",
          "the hub refused dataset "
              + source.repository()
              + "@"
              + source.revision()
              + " (HTTP "
              + status
              + " from "
              + e.url()
              + "): it does not exist, or it is gated or private and needs HF_TOKEN");
    }
    return new IllegalStateException(e.getMessage() + ". " + hint());
  }

  /**
   * Why the hub could not be reached, and what to do: the URL, the reason (never "null"), the
   * endpoint and where it comes from ({@code HF_ENDPOINT}), and how to work offline.
   */
  private UncheckedIOException unreachable(UncheckedIOException e) {
    return new UncheckedIOException(
        e.getMessage() + ": " + FailureReasons.of(e.getCause()) + ". " + hint(), e.getCause());
  }

  /** The endpoint, where it comes from, and the offline way. */
  private String hint() {
    return "The hub is "
        + endpoint
        + " (HF_ENDPOINT names another hub or a mirror). To work offline, pin the task's"
        + " revision to a commit SHA already downloaded under "
        + cacheDirectory.resolve("datasets")
        + " (no request is made then), or use a local BEIR folder (source: {path: DIR}).";
  }

  private static Path localPath(Path snapshot, String path) {
    Path base = snapshot.toAbsolutePath().normalize();
    Path target = base.resolve(path).normalize();
    if (!target.startsWith(base) || target.equals(base)) {
      throw new IllegalStateException("the hub listed a file outside the repository: " + path);
    }
    return target;
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
