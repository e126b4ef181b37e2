package dev.tenbin.eval.cli;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.util.HashMap;

/**
 * The Kubernetes API the executor tests talk to: fabric8's mock server in CRUD mode on loopback
 * (objects created are stored and read back; the test plays the Job controller by writing status).
 */
final class MockKubernetes {
  private MockKubernetes() {}

  /** A started CRUD-mode mock API server; close it with {@code destroy()}. */
  static KubernetesMockServer crudServer() {
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    server.init();
    return server;
  }
}
