package com.fairpix.webhooks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The thin payload: what a receiver needs to fetch the results itself, never where they are. */
class PayloadsTest {
    static final Instant AT = Instant.parse("2026-01-31T12:00:00Z");

    @Test
    void aSuccessCarriesTheJobItsStatusVersionAndResultSizesButNoLocations() throws Exception {
        JobEvent e = new JobEvent(JobEvent.SCHEMA_VERSION, "evt_1", "job.succeeded", AT, "job-1", "acme", JobState.DONE,
                Map.of("thumb", new JobRecord.Result("tenants/acme/results/job-1/thumb.webp", "webp", "image/webp", 256, 128, 1234)), null, 6);
        JsonNode body = Json.mapper().readTree(Payloads.of(e));
        assertThat(body.get("type").asText()).isEqualTo("job.succeeded");
        assertThat(Instant.parse(body.get("timestamp").asText())).isEqualTo(AT);
        JsonNode data = body.get("data");
        assertThat(data.get("jobId").asText()).isEqualTo("job-1");
        assertThat(data.get("tenant").asText()).isEqualTo("acme");
        assertThat(data.get("status").asText()).isEqualTo("DONE");
        assertThat(data.get("version").asLong()).isEqualTo(6);
        assertThat(data.at("/results/thumb/size").asLong()).isEqualTo(1234);
        assertThat(data.at("/results/thumb/width").asInt()).isEqualTo(256);
        assertThat(data.has("error")).isFalse();
        assertThat(new String(Payloads.of(e), StandardCharsets.UTF_8)).as("no storage key").doesNotContain("tenants/acme");
    }

    @Test
    void aFailureCarriesItsErrorAndCharactersBeyondTheBmpAsUtf8() throws Exception {
        JobEvent e = new JobEvent(JobEvent.SCHEMA_VERSION, "evt_2", "job.failed", AT, "job-2", "acme", JobState.FAILED, Map.of(),
                new JobRecord.Error("decode-failed", "Zoë 🚀"), 4);
        byte[] bytes = Payloads.of(e);
        assertThat(Json.mapper().readTree(bytes).at("/data/error/message").asText()).isEqualTo("Zoë 🚀");
        assertThat(new String(bytes, StandardCharsets.UTF_8)).contains("🚀").doesNotContain("\\ud83d");
        assertThat(Json.mapper().readTree(bytes).get("data").has("results")).isFalse();
    }
}
