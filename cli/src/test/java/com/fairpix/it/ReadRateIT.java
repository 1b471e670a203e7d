package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.ingest.IngestApi;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 33, "reads are admitted": a tenant polling its jobs in a loop gets 429 {@code too-many-reads}
 * with {@code Retry-After} once its read bucket is empty, while another tenant reads on and the first
 * still submits (its submit bucket is admission's, apart); a page of jobs stops at
 * {@code ingest.list-max-bytes} with a next cursor, and costs 1 token per 20 jobs asked for.
 */
class ReadRateIT {
    /** Six variants: a record of ~1.5 KB, so a page of 2 KB holds one. */
    private static final String SPEC;
    static {
        StringBuilder v = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            v.append(i == 0 ? "" : ",").append("\"v").append(i).append("\":[{\"op\":\"resize\",\"width\":").append(32 + i)
                    .append(",\"height\":32,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"jpeg\"}]");
        }
        SPEC = "{\"pool\":\"gpu\",\"variants\":{" + v + "}}";
    }

    @Test
    void aTenantReadingPastItsBucketGets429WhileOthersReadAndItStillSubmits() throws Exception {
        FairpixConfig config = Farm.config().with(Setting.INGEST_TENANT_READ_BURST, "10").with(Setting.INGEST_TENANT_READS_PER_SECOND, "0.5")
                .with(Setting.INGEST_LIST_MAX_BYTES, "2048");
        try (IngestApi ingest = IngestApi.start(config)) {
            Farm.Client client = new Farm.Client(ingest.port());
            String a = client.createTenant(Farm.tenantId("it-reads-a"), Map.of());
            String b = client.createTenant(Farm.tenantId("it-reads-b"), Map.of());
            byte[] image = Farm.smallJpeg(64, 48, 5);
            String[] ids = new String[3];
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = client.submitRaw(a, image, "image/jpeg", SPEC);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                ids[i] = Json.mapper().readTree(r.body()).get("id").asText();
            }
            String bJob = Json.mapper().readTree(client.submitRaw(b, image, "image/jpeg", SPEC).body()).get("id").asText();

            // A page of 100 costs 5 tokens; each record is ~1.5 KB, so 2 KB hold fewer than the 3 jobs.
            HttpResponse<String> page = client.get(a, "/v1/jobs?limit=100");
            assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
            JsonNode body = Json.mapper().readTree(page.body());
            assertThat(body.get("jobs").size()).as("bounded in bytes").isBetween(1, 2);
            assertThat(body.get("nextCursor").asText()).isEqualTo(body.get("jobs").get(body.get("jobs").size() - 1).get("id").asText());
            int gets = 0;
            HttpResponse<String> r;
            while ((r = client.get(a, "/v1/jobs/" + ids[0])).statusCode() == 200) gets++;
            assertThat(gets).as("the 5 tokens the page left").isBetween(5, 6);
            JsonNode problem = BadInputIT.assertProblem(r, 429, "too-many-reads");
            assertThat(problem.get("limit").asDouble()).isEqualTo(10);
            assertThat(r.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 2L));
            BadInputIT.assertProblem(client.get(a, "/v1/jobs"), 429, "too-many-reads");
            BadInputIT.assertProblem(client.get(a, "/v1/jobs/" + ids[1] + "/results/v0"), 429, "too-many-reads");

            assertThat(client.get(b, "/v1/jobs/" + bJob).statusCode()).as("B's reads are B's").isEqualTo(200);
            assertThat(client.submitRaw(a, image, "image/jpeg", SPEC).statusCode()).as("submits have their own bucket").isEqualTo(202);
        }
    }
}
