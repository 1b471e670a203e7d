package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Done-when 3 of issue 14, second half: the broker restarts while a flooding tenant and a quiet
 * tenant sharing its partition submit and a worker holds read-ahead and held-back jobs. Every job
 * that was accepted (202) reaches DONE with exactly one completion event id; submissions during
 * the outage get 503, which is not an acceptance. The broker is the stack's own (scripts/stack):
 * stopped with SIGTERM and started again by {@code scripts/stack up}.
 */
class BrokerRestartIT {
    @Test
    void aBrokerRestartUnderLoadLosesNoAcceptedJobAndDoesNoneTwice() throws Exception {
        FairpixConfig config = Farm.config().with(Setting.WORKER_POOL, "gpu").with(Setting.TENANT_PARTITION_RATE, "0");
        byte[] photo = Files.readAllBytes(Corpus.required("cameratrap-photos/american_black_bear.jpg"));
        List<String> noisyJobs = Collections.synchronizedList(new ArrayList<>());
        List<String> quietJobs = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger refused = new AtomicInteger();
        try (IngestApi ingest = IngestApi.start(config)) {
            Farm.Client client = new Farm.Client(ingest.port());
            String noisy = Farm.tenantId("it-restart-noisy");
            int partitions = config.integer(Setting.JOB_PARTITIONS);
            String quiet = Farm.tenantOnPartition("it-restart-quiet", com.fairpix.core.kafka.TenantPlacement.home(noisy, partitions), partitions);
            String noisyKey = client.createTenant(noisy, Map.of());
            String quietKey = client.createTenant(quiet, Map.of());
            // A backlog first, so that the worker holds flood jobs back when the broker goes.
            noisyJobs.addAll(IsolationIT.submitParallel(client, noisyKey, photo, IsolationIT.HEAVY, 60));
            Worker worker = Worker.start(config, -1);
            AtomicBoolean submitting = new AtomicBoolean(true);
            Thread load = Thread.ofPlatform().start(() -> {
                int i = 0;
                while (submitting.get()) {
                    try {
                        boolean quietTurn = i++ % 5 == 0;
                        HttpResponse<String> r = quietTurn
                                ? client.submitMultipart(quietKey, Farm.smallJpeg(320, 240, i), "q.jpg", IsolationIT.THUMB)
                                : client.submitMultipart(noisyKey, photo, "n.jpg", IsolationIT.HEAVY);
                        if (r.statusCode() == 202) {
                            (quietTurn ? quietJobs : noisyJobs).add(Json.mapper().readTree(r.body()).get("id").asText());
                        } else {
                            refused.incrementAndGet();
                        }
                        Thread.sleep(50);
                    } catch (Exception e) {
                        refused.incrementAndGet();
                    }
                }
            });
            try {
                IsolationIT.awaitDone(client, noisyKey, List.copyOf(noisyJobs), 5, Duration.ofSeconds(90));
                long down = System.nanoTime();
                restartBroker();
                System.out.printf("[BrokerRestartIT] broker restarted in %.1f s%n", (System.nanoTime() - down) / 1e9);
                Thread.sleep(5_000);
            } finally {
                submitting.set(false);
                load.join();
            }
            System.out.printf("[BrokerRestartIT] accepted %d flood and %d quiet jobs, %d submissions refused%n", noisyJobs.size(), quietJobs.size(), refused.get());
            try {
                for (String id : noisyJobs) assertThat(client.awaitTerminal(noisyKey, id, Duration.ofSeconds(240)).get("state").asText()).as("job %s", id).isEqualTo("DONE");
                for (String id : quietJobs) assertThat(client.awaitTerminal(quietKey, id, Duration.ofSeconds(60)).get("state").asText()).as("job %s", id).isEqualTo("DONE");
            } finally {
                worker.stop(Duration.ofSeconds(10));
            }
            List<String> all = new ArrayList<>(noisyJobs);
            all.addAll(quietJobs);
            assertThat(quietJobs).as("quiet jobs accepted around the restart").isNotEmpty();
            IsolationIT.assertOneCompletionEventEach(config, Set.of(noisy, quiet), all);
        }
    }

    /** SIGTERM to the stack's broker, wait for it to exit, then {@code scripts/stack up} starts it again. */
    static void restartBroker() throws Exception {
        Path root = Path.of(System.getProperty("fairpix.root", "."));
        String stateDir = System.getenv().getOrDefault("FAIRPIX_STATE_DIR", root.resolve(".fairpix").toString());
        Path pidFile = Path.of(stateDir, "run", "kafka.pid");
        assertThat(pidFile).as("the stack's broker PID file").exists();
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        ProcessHandle broker = ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("broker " + pid + " is not running"));
        assertThat(broker.info().commandLine().orElse("")).contains("kafka.Kafka");
        broker.destroy();
        broker.onExit().get(60, TimeUnit.SECONDS);
        Process up = new ProcessBuilder("bash", root.resolve("scripts/stack").toString(), "up")
                .directory(root.toFile()).redirectErrorStream(true).start();
        String out = new String(up.getInputStream().readAllBytes());
        assertThat(up.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(up.exitValue()).as("scripts/stack up:%n%s", out).isZero();
    }
}
