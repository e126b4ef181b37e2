package dev.tenbin.bench.setup;

import java.util.List;

/**
 * Stands in for a bench in {@link ExitWithParentTest}: starts {@link SleepingService} the way
 * {@link ServiceProcess} starts a service, then sleeps until killed.
 */
public final class ParentOfService {
  private ParentOfService() {}

  public static void main(String[] args) throws Exception {
    new ProcessBuilder(ServiceProcess.command(SleepingService.class.getName(), List.of(args[0])))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    Thread.sleep(Long.MAX_VALUE);
  }
}
