package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker process killed with SIGKILL while jobs are queued loses none: its uncommitted jobs are
 * redelivered to the restarted worker, and every job ends DONE. Runs on the gpu pool's queue so
 * that no in-process worker of another test takes the jobs.
 */
class WorkerCrashIT {
    @RegisterExtension static final Farm.Ingest farm = new Farm.Ingest();

    @Test
    void sigkillWhileJobsAreQueuedLosesNoJob() throws Exception {
        String key = farm.client().createTenant(Farm.tenantId("it-crash"), Map.of());
        byte[] photo = Files.readAllBytes(Corpus.required("cameratrap-photos/domestic_cattle.jpg"));
        String spec = Farm.SPEC.replaceFirst("^\\{", "{\"pool\":\"gpu\",");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            HttpResponse<String> r = farm.client().submitMultipart(key, photo, "cattle.jpg", spec);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            ids.add(Json.mapper().readTree(r.body()).get("id").asText());
        }

        int doneBeforeKill;
        try (WorkerProcess first = WorkerProcess.start("gpu", 1)) {
            doneBeforeKill = awaitSomeDone(key, ids, 3, Duration.ofSeconds(90), first);
            first.kill();
        }
        int doneAfterKill = countDone(key, ids);
        assertThat(doneAfterKill).as("the kill must land while jobs are still queued").isLessThan(ids.size());

        try (WorkerProcess second = WorkerProcess.start("gpu", 2)) {
            for (String id : ids) {
                JsonNode job = farm.client().awaitTerminal(key, id, Duration.ofSeconds(120));
                assertThat(job.get("state").asText()).as("job %s; worker log:%n%s", id, second.logTail()).isEqualTo("DONE");
                assertThat(job.get("results").size()).isEqualTo(2);
            }
            // A JVM ended by SIGTERM exits 143 (128 + 15) after its shutdown hooks ran.
            assertThat(second.terminate(30)).as("exit on SIGTERM").isIn(0, 143);
            assertThat(second.logTail()).contains("worker stopped gracefully");
        }
        assertThat(doneBeforeKill).isGreaterThanOrEqualTo(3);
    }

    private static int awaitSomeDone(String key, List<String> ids, int atLeast, Duration timeout, WorkerProcess worker) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            int done = countDone(key, ids);
            if (done >= atLeast) return done;
            assertThat(worker.alive()).as("worker died:%n%s", worker.logTail()).isTrue();
            Thread.sleep(50);
        }
        throw new AssertionError("fewer than " + atLeast + " jobs DONE after " + timeout + "; worker log:\n" + worker.logTail());
    }

    private static int countDone(String key, List<String> ids) throws Exception {
        int done = 0;
        for (String id : ids) if (farm.client().job(key, id).get("state").asText().equals("DONE")) done++;
        return done;
    }
}
