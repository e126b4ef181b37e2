package dev.tenbin.testing.rpc;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for a child process that must be told its port before it starts (and is started again on
 * the same port after a kill). A port the kernel hands out for {@code bind(0)} lies in its
 * ephemeral range, where any process's next outgoing connection may take it between the choice and
 * the child's bind; these ports are chosen below that range instead, checked free on every address,
 * and never handed out twice by one JVM.
 */
public final class LoopbackPorts {
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  private static final int DEFAULT_EPHEMERAL_LOW = 32_768;
  private static final int SPAN = 10_000;
  private static final int ATTEMPTS = 200;
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private LoopbackPorts() {}

  /** A port that is free now and lies outside the kernel's ephemeral range. */
  public static synchronized int reserve() {
    int high = ephemeralLow();
    int low = Math.max(1_024, high - SPAN);
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int port = random.nextInt(low, high);
      if (!HANDED_OUT.contains(port) && free(port)) {
        HANDED_OUT.add(port);
        return port;
      }
    }
    throw new IllegalStateException(
        "no free port in [" + low + ", " + high + ") after " + ATTEMPTS + " attempts");
  }

  /** The low end of the kernel's ephemeral port range (32768 where it cannot be read). */
  static int ephemeralLow() {
    try {
      // Read line by line: a /proc file reports size 0, and Files.readString reads a prefix of it.
      try (BufferedReader reader = Files.newBufferedReader(EPHEMERAL_RANGE)) {
        int low = Integer.parseInt(reader.readLine().trim().split("\\s+")[0]);
        return low > 2_048 ? low : DEFAULT_EPHEMERAL_LOW;
      }
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_LOW;
    }
  }

  private static boolean free(int port) {
    return bindable(new InetSocketAddress(port))
        && bindable(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
  }

  private static boolean bindable(InetSocketAddress address) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(address, 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
