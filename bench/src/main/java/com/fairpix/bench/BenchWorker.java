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
 *
 * <p>Without arguments it serves no HTTP ({@link FairnessBench}); {@code --port N} serves /metrics
 * and /health on port N (0: any free port), and the ready line names the port
 * ({@link IsolationBench} scrapes the worker's heap and read-ahead gauges there).
 */
public final class BenchWorker {
    private BenchWorker() {}

    public static void main(String[] args) throws InterruptedException {
        int port = -1;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) port = Integer.parseInt(args[++i]);
            else throw new IllegalArgumentException("unknown argument " + args[i] + " (--port N)");
        }
        Worker worker = Worker.start(FairpixConfig.load(System.getenv(), Map.of()), port);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            worker.stop(Duration.ofSeconds(10));
            stopped.countDown();
        }));
        System.out.println(port < 0 ? "bench worker ready" : "bench worker ready, HTTP port " + worker.httpPort());
        stopped.await();
    }
}
