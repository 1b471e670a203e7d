package com.fairpix.ingest.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.time.ManualClock;
import com.fairpix.ingest.admission.internal.LocalAdmission;
import com.fairpix.ingest.admission.internal.MeteredAdmission;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The metric names the issue asks for, as Prometheus shows them. */
class MeteredAdmissionTest {
    @Test
    void decisionsShowUpUnderTheirPrometheusNames() {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-30T08:00:00Z"));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        com.fairpix.core.metrics.TenantTags tags = new com.fairpix.core.metrics.TenantTags(registry, 50, clock::nanoTime);
        AdmissionConfig farm = AdmissionConfig.defaults().withFarmCapacity(100, 4);
        Admission a = new MeteredAdmission(new LocalAdmission(farm, clock), registry, tags);
        Tenant t = AdmissionContract.tenant("metered", 10, 2);
        for (int i = 0; i < 5; i++) a.decide(t, Limits.nano(1), null); // 2 guaranteed, then borrowed up to the ceiling
        Admission shadow = new MeteredAdmission(new LocalAdmission(AdmissionConfig.defaults().withShadow(Set.of(Policy.RATE)), clock), registry, tags);
        Tenant s = AdmissionContract.tenant("shadowed", 1, 1);
        shadow.decide(s, Limits.nano(1), null);
        shadow.decide(s, Limits.nano(1), null);
        Admission strict = new MeteredAdmission(new LocalAdmission(AdmissionConfig.defaults(), clock), registry, tags);
        Tenant r = AdmissionContract.tenant("strict", 1, 1);
        strict.decide(r, Limits.nano(1), null);
        strict.decide(r, Limits.nano(1), null);
        clock.advance(Duration.ofSeconds(1));
        String text = registry.scrape();
        assertThat(text).contains("fairpix_quota_consumed_total{tenant=\"metered\"} 5.0")
                .contains("fairpix_quota_remaining{tenant=\"metered\"}")
                .contains("fairpix_quota_borrowed_total{tenant=\"metered\"} 3.0")
                .contains("fairpix_quota_rejections_total{reason=\"rate\",tenant=\"strict\"} 1.0")
                .contains("fairpix_quota_shadow_rejections_total{reason=\"rate\",tenant=\"shadowed\"} 1.0");
    }
}
