package dev.tenbin.checks;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency rules of docs/architecture.md, on the compiled main classes of every module (this
 * module's test class path holds them all; test classes and test-jars are left out). Each module
 * owns the packages under its root, so a rule names packages, and a module is one root:
 *
 * <ul>
 *   <li>libraries: {@code dev.tenbin.core}, {@code .scoring}, {@code .rpc}, {@code .model}, {@code
 *       .client} and the contracts {@code .proto};
 *   <li>services: {@code dev.tenbin.encoder}, {@code .index}, {@code .rerank};
 *   <li>the orchestrator {@code dev.tenbin.eval}, in layers;
 *   <li>tooling beside the product: {@code dev.tenbin.bench}, {@code .drill}.
 * </ul>
 */
class DependencyRulesTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages("dev.tenbin");
  }

  /** Classes of Tenbin outside the given roots (each with its subpackages). */
  private static DescribedPredicate<JavaClass> tenbinOutside(String... roots) {
    String[] patterns = new String[roots.length];
    for (int i = 0; i < roots.length; i++) {
      patterns[i] = "dev.tenbin." + roots[i] + "..";
    }
    return resideInAPackage("dev.tenbin..")
        .and(resideOutsideOfPackages(patterns))
        .as("Tenbin classes outside " + String.join(", ", roots));
  }

  @Test
  void everyModuleContributesClasses() {
    Set<String> roots =
        classes.stream()
            .map(c -> c.getPackageName().split("\\.")[2])
            .collect(Collectors.toCollection(java.util.TreeSet::new));
    assertThat(roots)
        .containsExactlyInAnyOrder(
            "core", "scoring", "rpc", "model", "client", "proto", "encoder", "index", "rerank",
            "eval", "bench", "drill");
  }

  @Test
  void noPackageCycle() {
    slices().matching("dev.tenbin.(**)").should().beFreeOfCycles().check(classes);
  }

  @Test
  void coreKnowsNoOtherModuleAndNoTransport() {
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.core..")
        .should()
        .dependOnClassesThat(
            tenbinOutside("core").or(resideInAnyPackage("io.grpc..", "com.google..")))
        .because("tenbin-core is what every module shares: exceptions, lifetimes, cancellation")
        .check(classes);
  }

  @Test
  void scoringNeedsOnlyTheJdkAndJackson() {
    classes()
        .that()
        .resideInAPackage("dev.tenbin.scoring..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("dev.tenbin.scoring..", "java..", "com.fasterxml.jackson..")
        .because("the scoring library is for any Java program that evaluates runs")
        .check(classes);
  }

  @Test
  void contractsDependOnNoOtherModule() {
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.proto..")
        .should()
        .dependOnClassesThat(tenbinOutside("proto"))
        .check(classes);
  }

  @Test
  void rpcRuntimeKnowsNoContractAndNoService() {
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.rpc..")
        .should()
        .dependOnClassesThat(tenbinOutside("rpc", "core"))
        .because("the RPC runtime is shared by every server and client and knows none of them")
        .check(classes);
  }

  @Test
  void modelRuntimeKnowsNoTransportAndNoService() {
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.model..")
        .should()
        .dependOnClassesThat(tenbinOutside("model", "core").or(resideInAPackage("io.grpc..")))
        .because("the encoder and the rerank service share the model runtime")
        .check(classes);
  }

  @Test
  void clientsReachServicesOnlyThroughTheirContracts() {
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.client..")
        .should()
        .dependOnClassesThat(tenbinOutside("client", "proto", "rpc", "core"))
        .check(classes);
  }

  @Test
  void servicesTouchNoOtherService() {
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.index..")
        .should()
        .dependOnClassesThat(tenbinOutside("index", "proto", "rpc", "core"))
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.encoder..")
        .should()
        .dependOnClassesThat(tenbinOutside("encoder", "proto", "rpc", "core", "model"))
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.rerank..")
        .should()
        .dependOnClassesThat(tenbinOutside("rerank", "proto", "rpc", "core", "model", "client"))
        .because("the rerank service calls the encoder and the index only over gRPC")
        .check(classes);
  }

  @Test
  void eachServiceCoreKnowsNeitherItsServerNorItsAdapters() {
    for (String service : new String[] {"encoder", "index", "rerank"}) {
      String root = "dev.tenbin." + service;
      noClasses()
          .that()
          .resideOutsideOfPackages(root + ".server..", root + ".grpc..", root + ".http..")
          .and()
          .resideInAPackage(root + "..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(root + ".server..", root + ".grpc..", root + ".http..")
          .because("adapters and the server depend on the core, never the reverse")
          .check(classes);
    }
  }

  @Test
  void theOrchestratorUsesAServiceOnlyToStartItEmbedded() {
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.eval..")
        .should()
        .dependOnClassesThat(
            resideInAnyPackage("dev.tenbin.encoder..", "dev.tenbin.index..", "dev.tenbin.rerank..")
                .and(
                    resideOutsideOfPackages(
                        "dev.tenbin.encoder.server..",
                        "dev.tenbin.encoder.config..",
                        "dev.tenbin.index.server..",
                        "dev.tenbin.index.config..",
                        "dev.tenbin.rerank.server..",
                        "dev.tenbin.rerank.config..")))
        .because(
            "the orchestrator reaches the services through their clients (in-process when embedded)")
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.eval..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.tenbin.model..")
                .and(resideOutsideOfPackages("dev.tenbin.model.hub.."))
                .and(
                    DescribedPredicate.describe(
                        "are not ExecutionOptions",
                        (JavaClass c) ->
                            !c.getName().startsWith("dev.tenbin.model.onnx.ExecutionOptions"))))
        .because(
            "of the model runtime it takes only the hub client (datasets come from the hub too)"
                + " and the execution options it hands to the services it embeds")
        .check(classes);
  }

  @Test
  void theProductNeverReachesIntoTheTooling() {
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.tenbin.bench..", "dev.tenbin.drill..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.tenbin.bench..", "dev.tenbin.drill..")
        .because("benchmarks and drills live beside the product, not in its jars or image")
        .check(classes);
  }

  /** The orchestrator's layers, top to bottom, and their packages (docs/architecture.md). */
  private static final Map<String, List<String>> LAYERS = new LinkedHashMap<>();

  static {
    LAYERS.put("Entry points", List.of("cli", "server", "grpc"));
    LAYERS.put("Jobs", List.of("job", "shard"));
    LAYERS.put("Families", List.of("family"));
    LAYERS.put("Plan", List.of("plan"));
    LAYERS.put(
        "Reports",
        List.of("aggregate", "leaderboard", "export", "report", "warehouse", "posir", "parity"));
    LAYERS.put(
        "Building blocks",
        List.of(
            "retrieval",
            "candidates",
            "positions",
            "nano",
            "cache",
            "services",
            "taskset",
            "confine",
            "stats"));
    LAYERS.put("Results", List.of("store", "result", "provenance"));
  }

  private static String[] packagesOf(String layer) {
    return LAYERS.get(layer).stream()
        .map(p -> "dev.tenbin.eval." + p + "..")
        .toArray(String[]::new);
  }

  @Test
  void everyOrchestratorPackageIsInALayer() {
    Set<String> layered =
        LAYERS.values().stream().flatMap(List::stream).collect(Collectors.toSet());
    Set<String> unlayered =
        classes.stream()
            .map(JavaClass::getPackageName)
            .filter(p -> p.startsWith("dev.tenbin.eval."))
            .map(p -> p.split("\\.")[3])
            .filter(p -> !layered.contains(p))
            .collect(Collectors.toCollection(java.util.TreeSet::new));
    assertThat(unlayered).as("orchestrator packages in no layer").isEmpty();
    assertThat(
            classes.stream()
                .filter(c -> c.getPackageName().equals("dev.tenbin.eval"))
                .map(JavaClass::getName))
        .as("classes in the orchestrator's root package")
        .isEmpty();
  }

  @Test
  void theOrchestratorIsLayered() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("Entry points")
        .definedBy(packagesOf("Entry points"))
        .layer("Jobs")
        .definedBy(packagesOf("Jobs"))
        .layer("Families")
        .definedBy(packagesOf("Families"))
        .layer("Plan")
        .definedBy(packagesOf("Plan"))
        .layer("Reports")
        .definedBy(packagesOf("Reports"))
        .layer("Building blocks")
        .definedBy(packagesOf("Building blocks"))
        .layer("Results")
        .definedBy(packagesOf("Results"))
        .whereLayer("Entry points")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Jobs")
        .mayOnlyBeAccessedByLayers("Entry points")
        .whereLayer("Families")
        .mayOnlyBeAccessedByLayers("Jobs", "Entry points")
        .whereLayer("Plan")
        .mayOnlyBeAccessedByLayers("Families", "Jobs", "Entry points")
        .whereLayer("Reports")
        .mayOnlyBeAccessedByLayers("Jobs", "Entry points")
        .whereLayer("Building blocks")
        .mayOnlyBeAccessedByLayers("Plan", "Families", "Reports", "Jobs", "Entry points")
        .check(classes);
  }
}
