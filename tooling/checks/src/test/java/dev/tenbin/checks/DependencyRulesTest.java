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
 *   <li>the evaluation {@code dev.tenbin.eval}, in modules (engine, reports, executors, eval
 *       service, application) whose packages are listed below, the engine in floors;
 *   <li>tooling beside the product: {@code dev.tenbin.bench}, {@code .drill}, and the test fixtures
 *       they run with, {@code dev.tenbin.testing} (libs/testing).
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
            "eval", "bench", "drill", "testing");
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
  void scoringNeedsOnlyTheJdkJacksonAndCommonsStatistics() {
    classes()
        .that()
        .resideInAPackage("dev.tenbin.scoring..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.tenbin.scoring..",
            "java..",
            "com.fasterxml.jackson..",
            "org.apache.commons.statistics..")
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
  void onlyTheApplicationStartsTheServices() {
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.eval..")
        .and()
        .resideOutsideOfPackages(packagesOfModule("app"))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.tenbin.encoder..", "dev.tenbin.index..", "dev.tenbin.rerank..")
        .because(
            "the engine, the reports, the executors and the eval service reach the services through"
                + " their clients; the application starts them embedded"
                + " (dev.tenbin.eval.services.EmbeddedServices)")
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("dev.tenbin.eval..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.tenbin.model..")
                .and(
                    resideOutsideOfPackages(
                        "dev.tenbin.model.hub..", "dev.tenbin.model.tokenizer.."))
                .and(
                    DescribedPredicate.describe(
                        "are not ExecutionOptions",
                        (JavaClass c) ->
                            !c.getName().startsWith("dev.tenbin.model.onnx.ExecutionOptions"))))
        .because(
            "of the model runtime it takes only the hub client (datasets come from the hub too),"
                + " the tokenizers (document lengths and windows) and the execution options it"
                + " hands to the services it embeds")
        .check(classes);
  }

  @Test
  void theProductNeverReachesIntoTheTooling() {
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.tenbin.bench..", "dev.tenbin.drill..", "dev.tenbin.testing..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.tenbin.bench..", "dev.tenbin.drill..", "dev.tenbin.testing..")
        .because("benchmarks and drills live beside the product, not in its jars or image")
        .check(classes);
  }

  /**
   * The evaluation's modules, top to bottom, and their packages (docs/architecture.md): each may
   * use the ones below it, never one above. Maven holds the same order between the modules' jars.
   */
  private static final Map<String, List<String>> MODULES = new LinkedHashMap<>();

  static {
    MODULES.put("app", List.of("cli", "embedded"));
    MODULES.put("service", List.of("server", "web", "grpc"));
    MODULES.put("kubernetes", List.of("shard"));
    MODULES.put(
        "reports",
        List.of(
            "browse",
            "aggregate",
            "leaderboard",
            "export",
            "report",
            "warehouse",
            "posir",
            "parity"));
    MODULES.put(
        "engine",
        List.of(
            "job",
            "family",
            "plan",
            "retrieval",
            "candidates",
            "positions",
            "nano",
            "cache",
            "services",
            "taskset",
            "confine",
            "store",
            "result",
            "provenance"));
  }

  /** The engine's floors, top to bottom, and their packages. */
  private static final Map<String, List<String>> ENGINE_LAYERS = new LinkedHashMap<>();

  static {
    ENGINE_LAYERS.put("Jobs", List.of("job"));
    ENGINE_LAYERS.put("Families", List.of("family"));
    ENGINE_LAYERS.put("Plan", List.of("plan"));
    ENGINE_LAYERS.put(
        "Building blocks",
        List.of(
            "retrieval",
            "candidates",
            "positions",
            "nano",
            "cache",
            "services",
            "taskset",
            "confine"));
    ENGINE_LAYERS.put("Results", List.of("store", "result", "provenance"));
  }

  private static String[] evalPackages(List<String> names) {
    return names.stream().map(p -> "dev.tenbin.eval." + p + "..").toArray(String[]::new);
  }

  private static String[] packagesOfModule(String module) {
    return evalPackages(MODULES.get(module));
  }

  @Test
  void everyEvaluationPackageIsInAModule() {
    Set<String> placed =
        MODULES.values().stream().flatMap(List::stream).collect(Collectors.toSet());
    Set<String> unplaced =
        classes.stream()
            .map(JavaClass::getPackageName)
            .filter(p -> p.startsWith("dev.tenbin.eval."))
            .map(p -> p.split("\\.")[3])
            .filter(p -> !placed.contains(p))
            .collect(Collectors.toCollection(java.util.TreeSet::new));
    assertThat(unplaced).as("evaluation packages in no module").isEmpty();
    assertThat(
            classes.stream()
                .filter(c -> c.getPackageName().equals("dev.tenbin.eval"))
                .map(JavaClass::getName))
        .as("classes in the evaluation's root package")
        .isEmpty();
    Set<String> floors =
        ENGINE_LAYERS.values().stream()
            .flatMap(List::stream)
            .collect(Collectors.toCollection(java.util.TreeSet::new));
    assertThat(floors)
        .as("the engine's floors hold exactly the engine's packages")
        .isEqualTo(new java.util.TreeSet<>(MODULES.get("engine")));
  }

  @Test
  void theEvaluationModulesDependDownwardOnly() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("app")
        .definedBy(packagesOfModule("app"))
        .layer("service")
        .definedBy(packagesOfModule("service"))
        .layer("kubernetes")
        .definedBy(packagesOfModule("kubernetes"))
        .layer("reports")
        .definedBy(packagesOfModule("reports"))
        .layer("engine")
        .definedBy(packagesOfModule("engine"))
        .whereLayer("app")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("service")
        .mayOnlyBeAccessedByLayers("app")
        .whereLayer("kubernetes")
        .mayOnlyBeAccessedByLayers("service", "app")
        .whereLayer("reports")
        .mayOnlyBeAccessedByLayers("service", "app")
        .whereLayer("engine")
        .mayOnlyBeAccessedByLayers("reports", "kubernetes", "service", "app")
        .check(classes);
  }

  @Test
  void theEngineIsLayered() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("Jobs")
        .definedBy(evalPackages(ENGINE_LAYERS.get("Jobs")))
        .layer("Families")
        .definedBy(evalPackages(ENGINE_LAYERS.get("Families")))
        .layer("Plan")
        .definedBy(evalPackages(ENGINE_LAYERS.get("Plan")))
        .layer("Building blocks")
        .definedBy(evalPackages(ENGINE_LAYERS.get("Building blocks")))
        .layer("Results")
        .definedBy(evalPackages(ENGINE_LAYERS.get("Results")))
        .whereLayer("Jobs")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Families")
        .mayOnlyBeAccessedByLayers("Jobs")
        .whereLayer("Plan")
        .mayOnlyBeAccessedByLayers("Families", "Jobs")
        .whereLayer("Building blocks")
        .mayOnlyBeAccessedByLayers("Plan", "Families", "Jobs")
        .check(classes);
  }
}
