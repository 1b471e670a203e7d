package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.Topics;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A job that kills its worker JVM (a test hook halts the worker on a marked job, as an OOM kill or
 * a native crash would) is tried {@code worker.max-attempts} (3) times across restarted workers,
 * then FAILED with reason attempts-exhausted and one dead-letter record; the jobs queued behind it
 * on its partition complete. Runs on the gpu pool, as WorkerCrashIT, so no in-process worker of
 * another test takes the jobs.
 */
class PoisonJobIT {
    static final String MARK = "crash-marker";
    @RegisterExtension static final Farm.Ingest farm = new Farm.Ingest();

    @Test
    void aJobThatCrashesItsWorkerFailsAfterMaxAttemptsWithOneDeadLetter() throws Exception {
        String tenant = Farm.tenantId("it-poison");
        String key = farm.client().createTenant(tenant, Map.of());
        byte[] image = Farm.smallJpeg(320, 240, 3);
        String poisonSpec = "{\"pool\":\"gpu\",\"variants\":{\"" + MARK + "\":[{\"op\":\"resize\",\"width\":32}]}}";
        String spec = "{\"pool\":\"gpu\",\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":32}]}}";
        String poison = submit(key, image, poisonSpec);
        List<String> others = new ArrayList<>();
        for (int i = 0; i < 5; i++) others.add(submit(key, image, spec));

        int crashes = 0;
        List<String> logs = new ArrayList<>();
        for (int start = 0; start < 6 && !farm.client().job(key, poison).get("state").asText().equals("FAILED"); start++) {
            try (WorkerProcess w = WorkerProcess.start("gpu", 1, Map.of("FAIRPIX_TEST_CRASH_VARIANT", MARK))) {
                Integer exit = null;
                long deadline = System.nanoTime() + 90_000_000_000L;
                while (exit == null && System.nanoTime() < deadline && !farm.client().job(key, poison).get("state").asText().equals("FAILED")) {
                    exit = w.awaitExit(Duration.ofMillis(200));
                }
                if (exit != null) {
                    assertThat(exit).as("halted by the hook:%n%s", w.logTail()).isEqualTo(134);
                    crashes++;
                    logs.add(w.logTail());
                    continue;
                }
                // This worker survived: the poison job is FAILED; the others complete on it.
                for (String id : others) {
                    JsonNode job = farm.client().awaitTerminal(key, id, Duration.ofSeconds(60));
                    assertThat(job.get("state").asText()).as("job %s; worker log:%n%s", id, w.logTail()).isEqualTo("DONE");
                }
            }
        }
        JsonNode failed = farm.client().job(key, poison);
        assertThat(failed.get("state").asText()).as("after %d crashes; logs:%n%s", crashes, String.join("\n----\n", logs)).isEqualTo("FAILED");
        assertThat(failed.get("error").get("reason").asText()).isEqualTo("attempts-exhausted");
        assertThat(failed.get("attempts").asInt()).isEqualTo(3);
        assertThat(crashes).isEqualTo(3);
        // The worker writes FAILED, then publishes the dead letter: the record can be read a moment
        // before the broker has acknowledged it (this read missed it once under load).
        List<JsonNode> dead = Farm.readTopic(Farm.config(), Topics.DLQ, Set.of(tenant));
        for (long deadline = System.nanoTime() + 30_000_000_000L; dead.isEmpty() && System.nanoTime() < deadline; ) {
            Thread.sleep(200);
            dead = Farm.readTopic(Farm.config(), Topics.DLQ, Set.of(tenant));
        }
        assertThat(dead).as("dead letters of %s", tenant).hasSize(1);
        assertThat(dead.get(0).get("jobId").asText()).isEqualTo(poison);
        for (String id : others) assertThat(farm.client().job(key, id).get("state").asText()).isEqualTo("DONE");
    }

    private static String submit(String key, byte[] image, String spec) throws Exception {
        HttpResponse<String> r = farm.client().submitMultipart(key, image, "a.jpg", spec);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return Json.mapper().readTree(r.body()).get("id").asText();
    }
}
