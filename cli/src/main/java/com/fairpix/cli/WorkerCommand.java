package com.fairpix.cli;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.worker.Worker;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "worker", mixinStandardHelpOptions = true,
        description = {"Run a worker of one pool: consume fairpix.jobs.<pool>, schedule fairly across tenants, process with OpenCV.",
                "Backend: OpenCV on the CPU only. '--pool gpu' consumes the GPU queue with the same CPU backend; there is no GPU acceleration yet."})
final class WorkerCommand implements Callable<Integer> {
    @Mixin ServiceOptions service;

    @Option(names = "--pool", description = "cpu or gpu (FAIRPIX_WORKER_POOL, default cpu)")
    String pool;

    @Option(names = "--port", description = "port for /metrics and /health (FAIRPIX_WORKER_PORT, default 8081)")
    Integer port;

    @Option(names = "--threads", description = "processing threads any tenant may fill; 0 = cores (FAIRPIX_WORKER_THREADS)")
    Integer threads;

    @Option(names = "--reserved-threads", description = "extra threads kept for a tenant with no job running, so it starts at once while another tenant's flood fills the rest (FAIRPIX_WORKER_RESERVED_THREADS, default 2)")
    Integer reservedThreads;

    @Option(names = "--shared-nice", description = "nice value (0-19) of the threads any tenant may fill, so their image work yields the CPU to polling and the reserved threads; 0 = normal priority (FAIRPIX_WORKER_SHARED_NICE, default 10; Linux)")
    Integer sharedNice;

    @Option(names = "--shutdown-deadline", defaultValue = "30", description = "seconds running jobs get to finish on SIGTERM (default ${DEFAULT-VALUE})")
    int shutdownDeadline;

    @Override
    public Integer call() {
        Map<Setting, String> more = new EnumMap<>(Setting.class);
        if (pool != null) more.put(Setting.WORKER_POOL, pool);
        if (port != null) more.put(Setting.WORKER_PORT, port.toString());
        if (threads != null) more.put(Setting.WORKER_THREADS, threads.toString());
        if (reservedThreads != null) more.put(Setting.WORKER_RESERVED_THREADS, reservedThreads.toString());
        if (sharedNice != null) more.put(Setting.WORKER_SHARED_NICE, sharedNice.toString());
        FairpixConfig config = service.config(more);
        Worker worker = Worker.start(config, config.integer(Setting.WORKER_PORT));
        return Services.runUntilSignalled(() -> worker.stop(Duration.ofSeconds(shutdownDeadline)));
    }
}
