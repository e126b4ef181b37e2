package dev.tenbin.model.onnx;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtProvider;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one home of ONNX Runtime's process-wide environment. Tenbin never frees it: the operating
 * system reclaims it when the process ends.
 *
 * <p>ONNX Runtime's Java binding registers its own JVM shutdown hook ({@code OrtEnvironment}'s
 * {@code OrtEnvCloser} run by a plain {@code Thread}, created in the environment's constructor and
 * kept nowhere) that frees the environment and its log sink. JVM shutdown hooks run concurrently,
 * so on SIGTERM or {@code System.exit} that hook freed the environment while a batcher was still
 * inside {@code OrtSession.run}: a SIGSEGV in {@code libonnxruntime.so}. This class takes that hook
 * out when it first creates the environment; Tenbin's {@link dev.tenbin.core.OrderedShutdown} then
 * drains every batcher and session first. Taking the hook out needs {@code --add-opens
 * java.base/java.lang=ALL-UNNAMED} (in {@code tenbin.jvm.args} and the {@code tenbin} launcher).
 * Without it (library use) the hook stays and the environment is given one more native reference
 * instead, so that the hook's release frees nothing; a debug line says so.
 */
public final class OnnxEnvironment {
  private static final Logger log = LoggerFactory.getLogger(OnnxEnvironment.class);
  private static final String ORT_CLOSER = "ai.onnxruntime.OrtEnvironment$OrtEnvCloser";

  private static OrtEnvironment environment;
  private static boolean ortHookRemoved;

  private OnnxEnvironment() {}

  /** The environment, created on first use with ONNX Runtime's own shutdown hook taken out. */
  public static synchronized OrtEnvironment get() {
    if (environment == null) {
      OnnxNativeLibraries.prepare();
      List<Thread> before = ShutdownHooks.registered();
      environment = OrtEnvironment.getEnvironment();
      ortHookRemoved = removeOrtShutdownHook(before);
      if (!ortHookRemoved) {
        holdAnotherReference();
      }
    }
    return environment;
  }

  /**
   * The fallback when the hook cannot be taken out: the native environment is reference-counted
   * (each {@code CreateEnv} adds one, each {@code ReleaseEnv} drops one), so one more reference,
   * never released, leaves ONNX Runtime's hook nothing to free. Needs no JVM flag (ONNX Runtime's
   * classes are on the class path); when even this is closed to us, a debug line says so.
   */
  private static void holdAnotherReference() {
    try {
      Field api = Class.forName("ai.onnxruntime.OnnxRuntime").getDeclaredField("ortApiHandle");
      api.setAccessible(true);
      Method create =
          OrtEnvironment.class.getDeclaredMethod(
              "createHandle", long.class, int.class, String.class);
      create.setAccessible(true);
      create.invoke(
          null, api.getLong(null), OrtLoggingLevel.ORT_LOGGING_LEVEL_WARNING.getValue(), "tenbin");
      log.debug(
          "ONNX Runtime's shutdown hook stays; the environment holds one more reference so that it frees nothing");
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      log.debug(
          "cannot keep ONNX Runtime's environment alive past its shutdown hook: {}", e.toString());
    }
  }

  /** The execution providers this build of ONNX Runtime offers (CPU, and CUDA in a -Pgpu build). */
  public static java.util.EnumSet<OrtProvider> providers() {
    OnnxNativeLibraries.prepare();
    return OrtEnvironment.getAvailableProviders();
  }

  /** Whether this build of ONNX Runtime offers the CUDA execution provider. */
  public static boolean cudaAvailable() {
    return providers().contains(OrtProvider.CUDA);
  }

  /** The ONNX Runtime release this process runs, e.g. "1.29.0" (provenance of every output). */
  public static String version() {
    return get().getVersion();
  }

  /** Whether ONNX Runtime's own shutdown hook was taken out (false without the add-opens flag). */
  public static synchronized boolean ortShutdownHookRemoved() {
    get();
    return ortHookRemoved;
  }

  /**
   * Removes ONNX Runtime's hook: the hook whose task is an {@code OrtEnvCloser} or, when a thread's
   * task cannot be read, the one hook registered while the environment was created.
   */
  private static boolean removeOrtShutdownHook(List<Thread> before) {
    List<Thread> after = ShutdownHooks.registered();
    if (before == null || after == null) {
      log.debug(
          "cannot take ONNX Runtime's shutdown hook out; run the JVM with --add-opens java.base/java.lang=ALL-UNNAMED"
              + " so that shutdown drains running passes before the environment is freed");
      return false;
    }
    List<Thread> closers = new ArrayList<>();
    List<Thread> added = new ArrayList<>();
    for (Thread hook : after) {
      String task = ShutdownHooks.taskClass(hook);
      if (ORT_CLOSER.equals(task)) {
        closers.add(hook);
      } else if (task == null && !before.contains(hook)) {
        added.add(hook);
      }
    }
    if (closers.isEmpty() && added.size() == 1) {
      closers.add(added.getFirst());
    }
    boolean removed = false;
    for (Thread closer : closers) {
      try {
        removed |= Runtime.getRuntime().removeShutdownHook(closer);
      } catch (IllegalStateException shuttingDown) {
        return false;
      }
    }
    if (!removed) {
      log.debug("no ONNX Runtime shutdown hook found to take out");
    }
    return removed;
  }

  /** Read access to the JDK's table of application shutdown hooks (needs the add-opens flag). */
  private static final class ShutdownHooks {
    private ShutdownHooks() {}

    /** The registered hooks, or null when the table is closed to us or shutdown has begun. */
    static List<Thread> registered() {
      try {
        Class<?> hooksClass = Class.forName("java.lang.ApplicationShutdownHooks");
        Field field = hooksClass.getDeclaredField("hooks");
        field.setAccessible(true);
        // ApplicationShutdownHooks' methods synchronise on the class; so does this read.
        synchronized (hooksClass) {
          Map<?, ?> hooks = (Map<?, ?>) field.get(null);
          if (hooks == null) {
            return null;
          }
          List<Thread> threads = new ArrayList<>();
          for (Object hook : hooks.keySet()) {
            threads.add((Thread) hook);
          }
          return threads;
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }

    /** The class name of the Runnable a thread was created with, or null when unreadable. */
    static String taskClass(Thread thread) {
      if (thread.getClass() != Thread.class) {
        return thread.getClass().getName();
      }
      try {
        Field holderField = Thread.class.getDeclaredField("holder");
        holderField.setAccessible(true);
        Object holder = holderField.get(thread);
        Field taskField = holder.getClass().getDeclaredField("task");
        taskField.setAccessible(true);
        Object task = taskField.get(holder);
        return task == null ? null : task.getClass().getName();
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }
  }
}
