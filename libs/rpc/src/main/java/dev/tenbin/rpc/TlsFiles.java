package dev.tenbin.rpc;

import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.grpc.util.CertificateUtils;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS material of one end of a connection, kept in step with PEM files on disk: an identity
 * (certificate chain and PKCS#8 private key) in an {@link AdvancedTlsX509KeyManager} and trusted CA
 * certificates in an {@link AdvancedTlsX509TrustManager}. The files are checked every {@code
 * interval} (modification time, size, file key — so Kubernetes' symlink swaps of mounted secrets
 * count); changed files are read again and swapped in for new handshakes, without a restart. A
 * rotation caught half-way (a certificate whose key does not match yet, a torn file) keeps the
 * previous material and is retried at the next check.
 */
final class TlsFiles implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TlsFiles.class);

  /** What the files are called in messages (the flags that named them). */
  record Labels(String cert, String key, String ca) {}

  private final Path cert;
  private final Path key;
  private final Path ca;
  private final Labels labels;
  private final AdvancedTlsX509KeyManager keyManager;
  private final AdvancedTlsX509TrustManager trustManager;
  private volatile List<Stamp> identityStamps;
  private volatile Stamp caStamp;
  private volatile List<Stamp> failedStamps = List.of();
  private ScheduledFuture<?> reload;

  private TlsFiles(
      Path cert,
      Path key,
      Path ca,
      Labels labels,
      AdvancedTlsX509TrustManager.Verification verification)
      throws GeneralSecurityException {
    this.cert = cert;
    this.key = key;
    this.ca = ca;
    this.labels = labels;
    this.keyManager = cert == null ? null : new AdvancedTlsX509KeyManager();
    this.trustManager =
        ca == null
            ? null
            : AdvancedTlsX509TrustManager.newBuilder().setVerification(verification).build();
  }

  /**
   * Reads the files once (a clear {@link IllegalArgumentException} naming the flag when one is
   * missing or malformed) and schedules the checks on {@code scheduler}. {@code cert}/{@code key}
   * or {@code ca} may be null.
   */
  static TlsFiles open(
      Path cert,
      Path key,
      Path ca,
      Labels labels,
      AdvancedTlsX509TrustManager.Verification verification,
      Duration interval,
      ScheduledExecutorService scheduler) {
    TlsFiles files;
    try {
      files = new TlsFiles(cert, key, ca, labels, verification);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot create a TLS trust manager: " + e.getMessage(), e);
    }
    if (cert != null) {
      files.identityStamps = List.of(stamp(cert, labels.cert()), stamp(key, labels.key()));
      files.loadIdentity();
    }
    if (ca != null) {
      files.caStamp = stamp(ca, labels.ca());
      files.loadTrust();
    }
    long millis = Math.max(10, interval.toMillis());
    files.reload =
        scheduler.scheduleWithFixedDelay(files::check, millis, millis, TimeUnit.MILLISECONDS);
    return files;
  }

  /** The identity's key manager, or null when no certificate was given. */
  AdvancedTlsX509KeyManager keyManager() {
    return keyManager;
  }

  /** The CA trust manager, or null when no CA file was given. */
  AdvancedTlsX509TrustManager trustManager() {
    return trustManager;
  }

  /** Stops checking the files; the managers keep what they hold. */
  @Override
  public void close() {
    if (reload != null) {
      reload.cancel(false);
    }
  }

  /** One check: reload whatever changed since the last successful read. */
  void check() {
    try {
      List<Stamp> seen = new ArrayList<>();
      if (cert != null) {
        List<Stamp> now = List.of(stamp(cert, labels.cert()), stamp(key, labels.key()));
        seen.addAll(now);
        if (!now.equals(identityStamps)) {
          loadIdentity();
          identityStamps = now;
          log.info("TLS: reloaded {} and {}", cert, key);
        }
      }
      if (ca != null) {
        Stamp now = stamp(ca, labels.ca());
        seen.add(now);
        if (!now.equals(caStamp)) {
          loadTrust();
          caStamp = now;
          log.info("TLS: reloaded CA certificates {}", ca);
        }
      }
      failedStamps = List.of();
    } catch (RuntimeException failure) {
      // Log each failed state once, not at every check.
      List<Stamp> state = new ArrayList<>();
      try {
        if (cert != null) {
          state.add(stamp(cert, labels.cert()));
          state.add(stamp(key, labels.key()));
        }
        if (ca != null) {
          state.add(stamp(ca, labels.ca()));
        }
      } catch (RuntimeException unreadable) {
        state.clear();
      }
      if (!state.equals(failedStamps) || state.isEmpty()) {
        log.warn("TLS: keeping the previous certificates: {}", failure.getMessage());
      }
      failedStamps = state;
    }
  }

  private void loadIdentity() {
    X509Certificate[] chain = readCertificates(cert, labels.cert());
    PrivateKey privateKey;
    try (InputStream in = Files.newInputStream(key)) {
      privateKey = CertificateUtils.getPrivateKey(in);
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException(
          labels.key()
              + " "
              + key
              + ": not a PEM private key in PKCS#8 form ("
              + e.getMessage()
              + ")",
          e);
    }
    if (!matches(privateKey, chain[0])) {
      throw new IllegalArgumentException(
          labels.key()
              + " "
              + key
              + " does not belong to the certificate in "
              + labels.cert()
              + " "
              + cert);
    }
    keyManager.updateIdentityCredentials(chain, privateKey);
  }

  private void loadTrust() {
    X509Certificate[] authorities = readCertificates(ca, labels.ca());
    try {
      trustManager.updateTrustCredentials(authorities);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(labels.ca() + " " + ca + ": " + e.getMessage(), e);
    }
  }

  private static X509Certificate[] readCertificates(Path file, String label) {
    X509Certificate[] certificates;
    try (InputStream in = Files.newInputStream(file)) {
      certificates = CertificateUtils.getX509Certificates(in);
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException(
          label + " " + file + ": not PEM certificates (" + e.getMessage() + ")", e);
    }
    if (certificates.length == 0) {
      throw new IllegalArgumentException(label + " " + file + ": no PEM certificate in the file");
    }
    return certificates;
  }

  /** Whether {@code key} signs what {@code certificate}'s public key verifies. */
  static boolean matches(PrivateKey key, X509Certificate certificate) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "Ed25519", "EdDSA" -> "Ed25519";
          default -> null;
        };
    if (algorithm == null) {
      return true;
    }
    try {
      byte[] probe = "tenbin-key-check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certificate.getPublicKey());
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  /** What identifies a version of a file without reading it. */
  private record Stamp(long modifiedNanos, long size, Object fileKey) {}

  private static Stamp stamp(Path file, String label) {
    try {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      if (!attributes.isRegularFile()) {
        throw new IllegalArgumentException(label + " " + file + " is not a file");
      }
      return new Stamp(
          attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS),
          attributes.size(),
          Objects.requireNonNullElse(attributes.fileKey(), ""));
    } catch (IOException e) {
      throw new IllegalArgumentException(label + " " + file + ": cannot read (" + e + ")", e);
    }
  }
}
