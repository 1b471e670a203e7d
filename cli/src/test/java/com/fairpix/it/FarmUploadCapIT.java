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
 * {@code ingest.max-upload-bytes} is the farm-wide cap at ingest: a tenant whose own
 * {@code maxUploadBytes} is higher is refused past the farm's cap with the same 413
 * {@code payload-too-large} its own limit gives, naming the setting (before: only the worker read it).
 */
class FarmUploadCapIT {

    @Test
    void anUploadOverTheFarmsCapIs413ForATenantWhoseOwnLimitIsHigher() throws Exception {
        FairpixConfig config = Farm.config().with(Setting.MAX_UPLOAD_BYTES, "100000");
        try (IngestApi ingest = IngestApi.start(config)) {
            Farm.Client client = new Farm.Client(ingest.port());
            String tenant = Farm.tenantId("it-farm-cap");
            String key = client.createTenant(tenant, Map.of("maxUploadBytes", 25L << 20));
            byte[] image = new byte[200_000];
            image[0] = (byte) 0xFF;
            image[1] = (byte) 0xD8;
            image[2] = (byte) 0xFF;
            String spec = "{\"variants\":{\"t\":[{\"op\":\"encode\",\"format\":\"jpeg\"}]}}";
            for (HttpResponse<String> r : new HttpResponse[] {client.submitRaw(key, image, "image/jpeg", spec),
                    client.submitMultipart(key, image, "x.jpg", spec)}) {
                assertThat(r.statusCode()).isEqualTo(413);
                JsonNode p = Json.mapper().readTree(r.body());
                assertThat(p.get("type").asText()).endsWith("payload-too-large");
                assertThat(p.get("detail").asText()).contains("ingest.max-upload-bytes");
                assertThat(p.get("limit").asLong()).isEqualTo(100_000);
            }
        }
    }
}
