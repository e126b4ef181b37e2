package dev.tenbin.testing.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {
  @Test
  void portsLieBelowTheEphemeralRangeAreNeverRepeatedAndCanBeBound() throws IOException {
    int ephemeralLow = LoopbackPorts.ephemeralLow();
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = LoopbackPorts.reserve();
      assertThat(port).isBetween(1_024, ephemeralLow - 1);
      assertThat(ports.add(port)).as("port %d handed out twice", port).isTrue();
    }
    int port = LoopbackPorts.reserve();
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      assertThat(socket.getLocalPort()).isEqualTo(port);
    }
  }
}
