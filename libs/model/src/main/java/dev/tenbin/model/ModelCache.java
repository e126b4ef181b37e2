package dev.tenbin.model;

import dev.tenbin.core.UnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loaded models by id, each loaded once on first use (concurrent callers of the same id wait for
 * the one load) and, when an idle time is set, unloaded after that long without a caller.
 *
 * <p>Callers hold a {@link Handle} while they use a model; a model is unloaded only when no handle
 * is held. A caller arriving as a model is being unloaded gets a freshly loaded one. Closing the
 * cache closes every model (the models' own lifetimes let running work finish safely); later
 * callers get UNAVAILABLE.
 *
 * @param <M> the model type
 */
public final class ModelCache<M extends AutoCloseable> implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ModelCache.class);

  /** Told when a model is loaded or unloaded (metrics). */
  public interface Listener<M> {
    void loaded(String id, M model);

    void unloaded(String id, M model);
  }

  /** A held model; closing it returns the hold. */
  public final class Handle implements AutoCloseable {
    private final Slot slot;
    private final M model;
    private boolean released;

    private Handle(Slot slot, M model) {
      this.slot = slot;
      this.model = model;
    }

    public M model() {
      return model;
    }

    @Override
    public void close() {
      if (!released) {
        released = true;
        release(slot);
      }
    }
  }

  private final class Slot {
    final String id;
    final CompletableFuture<M> model = new CompletableFuture<>();
    int users;
    long lastUsed;

    Slot(String id) {
      this.id = id;
    }
  }

  private final String what;
  private final Function<String, M> loader;
  private final Duration idle;
  private final LongSupplier nanoClock;
  private final Listener<M> listener;
  private final Object lock = new Object();
  private final Map<String, Slot> slots = new HashMap<>();
  private final ScheduledExecutorService reaper;
  private boolean closed;

  /**
   * @param what what the models are, for thread names and messages ("encoder", "reranker")
   * @param loader loads a model by id (may throw the core's typed exceptions)
   * @param idle unload after this long unused; zero = never (no reaper thread)
   */
  public ModelCache(String what, Function<String, M> loader, Duration idle, Listener<M> listener) {
    this(what, loader, idle, listener, System::nanoTime);
  }

  ModelCache(
      String what,
      Function<String, M> loader,
      Duration idle,
      Listener<M> listener,
      LongSupplier nanoClock) {
    this.what = what;
    this.loader = loader;
    this.idle = idle;
    this.listener = listener;
    this.nanoClock = nanoClock;
    if (idle.isZero()) {
      this.reaper = null;
    } else {
      long period = Math.clamp(idle.toMillis() / 4, 50, 30_000);
      this.reaper =
          Executors.newSingleThreadScheduledExecutor(
              task -> Thread.ofPlatform().name(what + "-idle-unloader").daemon().unstarted(task));
      reaper.scheduleWithFixedDelay(this::unloadIdleQuietly, period, period, TimeUnit.MILLISECONDS);
    }
  }

  /** The model, loading it on first use; hold the handle while using the model. */
  public Handle acquire(String id) {
    Slot slot;
    boolean load = false;
    synchronized (lock) {
      if (closed) {
        throw new UnavailableException("the " + what + " service is shutting down");
      }
      slot = slots.get(id);
      if (slot == null) {
        slot = new Slot(id);
        slots.put(id, slot);
        load = true;
      }
      slot.users++;
    }
    if (load) {
      load(slot);
    }
    try {
      return new Handle(slot, slot.model.join());
    } catch (CompletionException e) {
      release(slot);
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  private void load(Slot slot) {
    M model;
    try {
      model = loader.apply(slot.id);
    } catch (RuntimeException | Error e) {
      synchronized (lock) {
        slots.remove(slot.id, slot);
      }
      slot.model.completeExceptionally(e);
      return;
    }
    boolean published;
    synchronized (lock) {
      // Completed under the lock, so close() either sees the model (and closes it) or this sees
      // closed.
      published = !closed && slot.model.complete(model);
    }
    if (!published) {
      closeQuietly(slot.id, model);
      slot.model.completeExceptionally(
          new UnavailableException("the " + what + " service is shutting down"));
      return;
    }
    listener.loaded(slot.id, model);
  }

  private void release(Slot slot) {
    synchronized (lock) {
      slot.users--;
      slot.lastUsed = nanoClock.getAsLong();
    }
  }

  /** Ids of the models loaded now. */
  public Set<String> loadedIds() {
    synchronized (lock) {
      Set<String> ids = new TreeSet<>();
      slots.forEach(
          (id, slot) -> {
            if (slot.model.isDone() && !slot.model.isCompletedExceptionally()) {
              ids.add(id);
            }
          });
      return ids;
    }
  }

  /** The model if it is loaded now, without loading or holding it (metrics). */
  public M loadedOrNull(String id) {
    synchronized (lock) {
      Slot slot = slots.get(id);
      return slot == null || !slot.model.isDone() || slot.model.isCompletedExceptionally()
          ? null
          : slot.model.join();
    }
  }

  /** Unloads every model no one has held for the idle time; returns their ids. */
  public List<String> unloadIdle() {
    if (idle.isZero()) {
      return List.of();
    }
    List<Slot> victims = new ArrayList<>();
    long now = nanoClock.getAsLong();
    synchronized (lock) {
      for (Slot slot : slots.values()) {
        if (slot.users == 0
            && slot.model.isDone()
            && !slot.model.isCompletedExceptionally()
            && now - slot.lastUsed >= idle.toNanos()) {
          victims.add(slot);
        }
      }
      victims.forEach(slot -> slots.remove(slot.id));
    }
    List<String> ids = new ArrayList<>();
    for (Slot slot : victims) {
      M model = slot.model.join();
      closeQuietly(slot.id, model);
      listener.unloaded(slot.id, model);
      log.info("{} model {} unloaded after {} idle", what, slot.id, idle);
      ids.add(slot.id);
    }
    return ids;
  }

  private void unloadIdleQuietly() {
    try {
      unloadIdle();
    } catch (RuntimeException e) {
      log.warn("unloading idle {} models failed", what, e);
    }
  }

  private void closeQuietly(String id, M model) {
    try {
      model.close();
    } catch (Exception e) {
      log.warn("closing {} model {} failed", what, id, e);
    }
  }

  /** Closes every model; later callers get UNAVAILABLE. */
  @Override
  public void close() {
    List<Slot> all;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      all = new ArrayList<>(slots.values());
      slots.clear();
    }
    if (reaper != null) {
      reaper.shutdownNow();
    }
    for (Slot slot : all) {
      if (slot.model.isDone() && !slot.model.isCompletedExceptionally()) {
        M model = slot.model.join();
        closeQuietly(slot.id, model);
        listener.unloaded(slot.id, model);
      }
    }
  }
}
