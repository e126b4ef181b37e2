package dev.tenbin.bench.compare;

import java.lang.management.ManagementFactory;

/**
 * The CPU time (user and system, all threads) a process has used so far, in nanoseconds, as the
 * operating system counts it: this JVM's ({@link #thisProcess}) or a service process's ({@code
 * ServiceProcess::cpuNanos}).
 */
@FunctionalInterface
public interface CpuClock {
  long cpuNanos();

  /** This JVM's CPU time. */
  static CpuClock thisProcess() {
    return () ->
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
  }
}
