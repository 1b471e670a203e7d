package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 9, worker side: S3 stops while jobs are queued. The worker's S3 breaker opens, the worker
 * stops taking jobs and keeps its offsets; no job is FAILED (an outage spends no attempt); when S3
 * is back every job ends DONE. Uses a private S3Proxy process (OverloadIT's), on the gpu pool.
 */
class WorkerS3OutageIT {

    @Test
    void anS3OutageHoldsJobsInsteadOfFailingThemAndTheyAllCompleteWhenS3IsBack() throws Exception {
        FairpixConfig stack = Farm.config();
        java.nio.file.Path blobs = java.nio.file.Files.createTempDirectory("fairpix-worker-s3");
        int s3Port = OverloadIT.freePort();
        Process proxy = OverloadIT.startS3(blobs, s3Port, stack);
        FairpixConfig config = stack.with(Setting.S3_ENDPOINT, "http://127.0.0.1:" + s3Port)
                .with(Setting.WORKER_POOL, "gpu").with(Setting.WORKER_THREADS, "2").with(Setting.WORKER_MAX_ATTEMPTS, "3")
                // Open 2 s rather than the default 5 s: the outage below spans several open/half-open cycles in 6 s.
                .with(Setting.BREAKER_OPEN_MS, "2000");
        Worker worker = null;
        try (IngestApi ingest = IngestApi.start(config)) {
            Farm.Client client = new Farm.Client(ingest.port());
            String key = client.createTenant(Farm.tenantId("it-s3out"), Map.of());
            byte[] image = Farm.smallJpeg(1600, 1200, 9);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                HttpResponse<String> r = client.submitRaw(key, image, "image/jpeg", QueueScenariosIT.THUMB);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                ids.add(Json.mapper().readTree(r.body()).get("id").asText());
            }

            worker = Worker.start(config, -1);
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (count(client, key, ids, "DONE") < 3) {
                assertThat(System.nanoTime()).as("3 jobs DONE before the outage").isLessThan(deadline);
                Thread.sleep(50);
            }
            OverloadIT.stopS3(proxy);
            Thread.sleep(6_000); // several open/half-open cycles of the worker's breaker (2 s open)
            int doneDuringOutage = count(client, key, ids, "DONE");
            assertThat(count(client, key, ids, "FAILED")).as("jobs failed by the outage").isZero();
            assertThat(doneDuringOutage).as("the outage hit while jobs were queued").isLessThan(ids.size());

            proxy = OverloadIT.startS3(blobs, s3Port, stack);
            for (String id : ids) {
                JsonNode job = client.awaitTerminal(key, id, Duration.ofSeconds(120));
                assertThat(job.get("state").asText()).as("job %s: %s", id, job.path("error")).isEqualTo("DONE");
            }
        } finally {
            if (worker != null) worker.stop(Duration.ofSeconds(10));
            OverloadIT.stopS3(proxy);
        }
    }

    private static int count(Farm.Client client, String key, List<String> ids, String state) throws Exception {
        int n = 0;
        for (String id : ids) if (client.job(key, id).get("state").asText().equals(state)) n++;
        return n;
    }
}
