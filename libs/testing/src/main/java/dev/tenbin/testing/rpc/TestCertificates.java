package dev.tenbin.testing.rpc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificate authorities and the certificates they sign, made inside a test (EC P-256, valid for a
 * day): nothing is read from disk or the network. {@code issue("localhost")} gives a certificate
 * for {@code localhost} and {@code 127.0.0.1}, usable by servers and clients alike.
 */
public final class TestCertificates {
  private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

  private TestCertificates() {}

  /** A new self-signed certificate authority. */
  public static Authority authority(String name) {
    KeyPair keys = keyPair();
    X500Name subject = new X500Name("CN=" + name);
    try {
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  subject, serial(), notBefore(), notAfter(), subject, keys.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
              .addExtension(
                  Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  extensions.createSubjectKeyIdentifier(keys.getPublic()));
      return new Authority(subject, keys, sign(builder, keys));
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A certificate authority: signs certificates, writes its own as PEM. */
  public record Authority(X500Name subject, KeyPair keys, X509Certificate certificate) {
    /** A certificate for {@code commonName} with the DNS name localhost and IP 127.0.0.1. */
    public Issued issue(String commonName) {
      KeyPair leafKeys = keyPair();
      try {
        JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
        GeneralNames names =
            new GeneralNames(
                new GeneralName[] {
                  new GeneralName(GeneralName.dNSName, "localhost"),
                  new GeneralName(GeneralName.iPAddress, "127.0.0.1")
                });
        X509v3CertificateBuilder builder =
            new JcaX509v3CertificateBuilder(
                    subject,
                    serial(),
                    notBefore(),
                    notAfter(),
                    new X500Name("CN=" + commonName),
                    leafKeys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                .addExtension(
                    Extension.extendedKeyUsage,
                    false,
                    new ExtendedKeyUsage(
                        new KeyPurposeId[] {
                          KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth
                        }))
                .addExtension(Extension.subjectAlternativeName, false, names)
                .addExtension(
                    Extension.authorityKeyIdentifier,
                    false,
                    extensions.createAuthorityKeyIdentifier(certificate))
                .addExtension(
                    Extension.subjectKeyIdentifier,
                    false,
                    extensions.createSubjectKeyIdentifier(leafKeys.getPublic()));
        return new Issued(leafKeys, sign(builder, keys));
      } catch (IOException | GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }

    /** Writes the authority's certificate as PEM (a CA file for clients or --tls-client-ca). */
    public Path writeCertificate(Path file) {
      return write(file, pem("CERTIFICATE", encoded(certificate)));
    }
  }

  /** A certificate and its key pair. */
  public record Issued(KeyPair keys, X509Certificate certificate) {
    public Path writeCertificate(Path file) {
      return write(file, pem("CERTIFICATE", encoded(certificate)));
    }

    /** Writes the private key as PEM PKCS#8 ({@code BEGIN PRIVATE KEY}). */
    public Path writeKey(Path file) {
      return write(file, pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
    }
  }

  private static KeyPair keyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer)
      throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(
              builder.build(
                  new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static BigInteger serial() {
    return BigInteger.valueOf(SERIAL.incrementAndGet());
  }

  private static Date notBefore() {
    return Date.from(Instant.now().minus(Duration.ofHours(1)));
  }

  private static Date notAfter() {
    return Date.from(Instant.now().plus(Duration.ofDays(1)));
  }

  private static byte[] encoded(X509Certificate certificate) {
    try {
      return certificate.getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  private static Path write(Path file, String text) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, text, StandardCharsets.US_ASCII);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
