package com.fairpix.ingest.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.tenant.Tenant;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class AdminTenantViewTest {
    @Test
    void theViewNeverCarriesTheSecretOnlyWhetherThereIsOne() {
        Tenant t = Tenant.withDefaults("acme").withWebhookSecret("whsec_c2VjcmV0LXZhbHVlLW5vdC1mb3ItcmVhZHM=");
        ObjectNode v = TenantsController.view(t);
        assertThat(v.has("webhookSecret")).isFalse();
        assertThat(v.toString()).doesNotContain("whsec_");
        assertThat(v.get("webhookSecretSet").asBoolean()).isTrue();
        assertThat(v.get("id").asText()).isEqualTo("acme");
        assertThat(TenantsController.view(Tenant.withDefaults("plain")).get("webhookSecretSet").asBoolean()).isFalse();
    }
}
