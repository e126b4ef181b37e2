package dev.tenbin.eval.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module graph, checked on the compiled main classes of every module (the orchestrator's test
 * class path holds them all). A class belongs to the module it was loaded from ({@code
 * encoder-service/target/classes} or {@code tenbin-encoder-service-*.jar}), not to its package: the
 * shared ONNX and model-file classes keep their {@code dev.tenbin.encoder} packages in
 * model-runtime.
 *
 * <p>Contracts know nothing else; the RPC runtime knows no contract; the model runtime knows no
 * service; the rerank service never reaches into the encoder; the orchestrator reaches the services
 * through their clients and contracts, and touches a service module only to start it embedded (its
 * server and config classes) or to run its benchmark ({@code bench} packages).
 */
class ModuleBoundariesTest {
  private static final Pattern MODULE =
      Pattern.compile(
          "/(?:tenbin-)?(proto|rpc-runtime|model-runtime|encoder-client|encoder-service|index-service"
              + "|rerank-service|eval-orchestrator)(?:/target/classes/|-\\d[^/]*\\.jar)");

  /** The entry classes of the service modules the orchestrator's main code may use. */
  private static final Set<String> ORCHESTRATOR_ENTRY_CLASSES =
      Set.of(
          "dev.tenbin.encoder.server.EncoderServer",
              "dev.tenbin.encoder.config.EncoderServiceConfig",
          "dev.tenbin.index.server.IndexServer", "dev.tenbin.index.config.IndexServiceConfig",
          "dev.tenbin.rerank.server.RerankServer", "dev.tenbin.rerank.config.RerankServiceConfig");

  /**
   * The one model-runtime class the orchestrator's main code may use: the execution options it
   * hands to the services it embeds (the same flags as the services' own).
   */
  private static final Set<String> ORCHESTRATOR_MODEL_RUNTIME_CLASSES =
      Set.of("dev.tenbin.model.onnx.ExecutionOptions");

  private static final List<String> ORCHESTRATOR_ENTRY_PACKAGES =
      List.of("dev.tenbin.encoder.bench", "dev.tenbin.index.bench", "dev.tenbin.rerank.bench");

  private static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    // Only Tenbin's own class path entries (target/classes, or the modules' jars in a build past
    // `package`); their tests and test-jars are left out.
    List<Location> modules =
        Arrays.stream(
                // Surefire runs tests from a manifest-only jar and names the real class path here.
                System.getProperty(
                        "surefire.test.class.path", System.getProperty("java.class.path"))
                    .split(File.pathSeparator))
            .map(Path::of)
            .filter(entry -> MODULE.matcher(entry.toUri().toString()).find())
            .map(ModuleBoundariesTest::location)
            .toList();
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importLocations(modules);
  }

  private static Location location(Path entry) {
    if (!entry.toString().endsWith(".jar")) {
      return Location.of(entry);
    }
    try (JarFile jar = new JarFile(entry.toFile())) {
      return Location.of(jar);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The module a class was loaded from, or empty for classes outside Tenbin's modules. */
  static Optional<String> moduleOf(JavaClass type) {
    return type.getSource()
        .map(source -> MODULE.matcher(source.getUri().toString()))
        .filter(Matcher::find)
        .map(m -> m.group(1));
  }

  private static DescribedPredicate<JavaClass> inModule(String... modules) {
    Set<String> names = Set.of(modules);
    return DescribedPredicate.describe(
        "are in module " + String.join(" or ", modules),
        type -> moduleOf(type).map(names::contains).orElse(false));
  }

  @Test
  void everyModuleContributesClasses() {
    assertThat(
            classes.stream()
                .map(ModuleBoundariesTest::moduleOf)
                .flatMap(Optional::stream)
                .distinct())
        .containsExactlyInAnyOrder(
            "proto",
            "rpc-runtime",
            "model-runtime",
            "encoder-client",
            "encoder-service",
            "index-service",
            "rerank-service",
            "eval-orchestrator");
  }

  @Test
  void contractsDependOnNoOtherModule() {
    noClasses()
        .that(inModule("proto"))
        .should()
        .dependOnClassesThat(
            inModule(
                "rpc-runtime",
                "model-runtime",
                "encoder-client",
                "encoder-service",
                "index-service",
                "rerank-service",
                "eval-orchestrator"))
        .because("proto/ holds only the contracts and their generated stubs")
        .check(classes);
  }

  @Test
  void rpcRuntimeKnowsNoContractAndNoService() {
    noClasses()
        .that(inModule("rpc-runtime"))
        .should()
        .dependOnClassesThat(
            inModule(
                "proto",
                "model-runtime",
                "encoder-client",
                "encoder-service",
                "index-service",
                "rerank-service",
                "eval-orchestrator"))
        .because("the RPC runtime is shared by every server and client and knows none of them")
        .check(classes);
  }

  @Test
  void modelRuntimeKnowsNoService() {
    noClasses()
        .that(inModule("model-runtime"))
        .should()
        .dependOnClassesThat(
            inModule(
                "proto",
                "encoder-client",
                "encoder-service",
                "index-service",
                "rerank-service",
                "eval-orchestrator"))
        .because(
            "the encoder and the rerank service share the model runtime; it must not pull either in")
        .check(classes);
  }

  @Test
  void encoderClientReachesTheEncoderOnlyThroughItsContract() {
    noClasses()
        .that(inModule("encoder-client"))
        .should()
        .dependOnClassesThat(
            inModule(
                "model-runtime",
                "encoder-service",
                "index-service",
                "rerank-service",
                "eval-orchestrator"))
        .check(classes);
  }

  @Test
  void rerankServiceNeverTouchesTheEncoderService() {
    noClasses()
        .that(inModule("rerank-service"))
        .should()
        .dependOnClassesThat(inModule("encoder-service", "index-service", "eval-orchestrator"))
        .because(
            "the rerank service shares the model runtime with the encoder and calls it only over gRPC")
        .check(classes);
  }

  @Test
  void indexServiceTouchesNoOtherService() {
    noClasses()
        .that(inModule("index-service"))
        .should()
        .dependOnClassesThat(
            inModule(
                "model-runtime",
                "encoder-client",
                "encoder-service",
                "rerank-service",
                "eval-orchestrator"))
        .check(classes);
  }

  @Test
  void orchestratorUsesServiceModulesOnlyThroughTheirEntryClasses() {
    DescribedPredicate<JavaClass> internals =
        DescribedPredicate.describe(
            "are service internals (not "
                + ORCHESTRATOR_ENTRY_CLASSES
                + " or a class in "
                + ORCHESTRATOR_ENTRY_PACKAGES
                + ")",
            type -> {
              Optional<String> module = moduleOf(type);
              if (module.isEmpty()) {
                return false;
              }
              if (module.get().equals("model-runtime")) {
                return !ORCHESTRATOR_MODEL_RUNTIME_CLASSES.contains(type.getName());
              }
              if (!Set.of("encoder-service", "index-service", "rerank-service")
                  .contains(module.get())) {
                return false;
              }
              String outer =
                  type.getName().contains("$")
                      ? type.getName().substring(0, type.getName().indexOf('$'))
                      : type.getName();
              return !ORCHESTRATOR_ENTRY_CLASSES.contains(outer)
                  && !ORCHESTRATOR_ENTRY_PACKAGES.contains(type.getPackageName());
            });
    noClasses()
        .that(inModule("eval-orchestrator"))
        .should()
        .dependOnClassesThat(internals)
        .because(
            "the orchestrator reaches the services through their gRPC clients (in-process when embedded)")
        .check(classes);
  }
}
