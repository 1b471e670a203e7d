package com.fairpix.bench;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.worker.Worker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A worker in its own JVM for {@link FairnessBench}, configured from the environment as
 * {@code fairpix worker} is: the ingest's upload garbage and its collector pauses then stay out
 * of the worker's queue waits, as they do in a deployment. Stops gracefully on SIGTERM.
 */
public final class BenchWorker {
    private BenchWorker() {}

    public static void main(String[] args) throws InterruptedException {
        Worker worker = Worker.start(FairpixConfig.load(System.getenv(), Map.of()), -1);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            worker.stop(Duration.ofSeconds(10));
            stopped.countDown();
        }));
        System.out.println("bench worker ready");
        stopped.await();
    }
}
