package dev.tenbin.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LifetimeTest {
  @Test
  void closeWaitsForTheHeldLeaseAndThenFreesOnce() throws Exception {
    AtomicInteger frees = new AtomicInteger();
    AtomicBoolean inUse = new AtomicBoolean();
    AtomicBoolean freedWhileInUse = new AtomicBoolean();
    Lifetime lifetime =
        new Lifetime(
            "test resource",
            () -> {
              freedWhileInUse.compareAndSet(false, inUse.get());
              frees.incrementAndGet();
            });
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread user =
        Thread.ofPlatform()
            .start(
                () -> {
                  try (Lifetime.Lease lease = lifetime.acquire()) {
                    inUse.set(true);
                    holding.countDown();
                    release.await(10, TimeUnit.SECONDS);
                    inUse.set(false);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
    holding.await(10, TimeUnit.SECONDS);
    Thread closer = Thread.ofPlatform().start(lifetime::close);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!lifetime.isClosing()) {
      assertThat(System.nanoTime()).as("closing begun").isLessThan(deadline);
      Thread.sleep(2);
    }
    closer.join(200);
    assertThat(closer.isAlive()).as("close waits while a lease is held").isTrue();
    assertThat(frees).hasValue(0);
    assertThatThrownBy(lifetime::acquire)
        .isInstanceOf(UnavailableException.class)
        .hasMessageContaining("test resource");
    release.countDown();
    closer.join(10_000);
    user.join(10_000);
    assertThat(closer.isAlive()).isFalse();
    assertThat(frees).hasValue(1);
    assertThat(freedWhileInUse).isFalse();
    lifetime.close();
    assertThat(frees).as("closing again frees nothing more").hasValue(1);
  }

  @Test
  void aCloseThatStopsWaitingLeavesTheFreeToTheLastLease() {
    AtomicInteger frees = new AtomicInteger();
    Lifetime lifetime = new Lifetime("r", frees::incrementAndGet);
    Lifetime.Lease lease = lifetime.acquire();
    assertThat(lifetime.close(Duration.ofMillis(50))).isFalse();
    assertThat(lifetime.isClosing()).isTrue();
    assertThat(frees).hasValue(0);
    lease.close();
    assertThat(frees).hasValue(1);
    assertThat(lifetime.isFreed()).isTrue();
  }

  @Test
  void manyThreadsRacingACloseNeverSeeTheResourceFreedUnderThem() throws Exception {
    for (int round = 0; round < 20; round++) {
      AtomicInteger users = new AtomicInteger();
      AtomicBoolean violated = new AtomicBoolean();
      AtomicInteger frees = new AtomicInteger();
      Lifetime lifetime =
          new Lifetime(
              "r",
              () -> {
                if (users.get() != 0) {
                  violated.set(true);
                }
                frees.incrementAndGet();
              });
      AtomicInteger refused = new AtomicInteger();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      for (int i = 0; i < 20_000; i++) {
                        try (Lifetime.Lease lease = lifetime.acquire()) {
                          users.incrementAndGet();
                          if (lifetime.isFreed()) {
                            violated.set(true);
                          }
                          users.decrementAndGet();
                        } catch (UnavailableException closed) {
                          refused.incrementAndGet();
                          return;
                        }
                      }
                    }));
      }
      Thread.sleep(round % 3);
      lifetime.close();
      for (Thread thread : threads) {
        thread.join(10_000);
      }
      assertThat(violated).isFalse();
      assertThat(frees).hasValue(1);
    }
  }
}
