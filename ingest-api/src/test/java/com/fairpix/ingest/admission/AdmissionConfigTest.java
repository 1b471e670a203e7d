package com.fairpix.ingest.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.config.Constraint;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The admission.* settings read as typed values; their constraints, written in core, agree with admission's own names and limits. */
class AdmissionConfigTest {
    static FairpixConfig load(Map<String, String> env) {
        return FairpixConfig.load(env, Map.of());
    }

    @Test
    void theSettingsReadAsTypedValues() {
        AdmissionConfig c = AdmissionConfig.from(load(Map.of("FAIRPIX_ADMISSION_SHADOW", "rate, concurrency", "FAIRPIX_ADMISSION_REDIS_DOWN", "closed",
                "FAIRPIX_ADMISSION_LEASE_TTL_SECONDS", "60")));

        assertThat(c.measuredCapacity()).isTrue();
        assertThat(c.shadow()).containsExactlyInAnyOrder(Policy.RATE, Policy.CONCURRENCY);
        assertThat(c.redisDown()).isEqualTo(AdmissionConfig.RedisDown.CLOSED);
        assertThat(c.leaseTtl()).isEqualTo(Duration.ofMinutes(1));
        assertThat(AdmissionConfig.from(load(Map.of("FAIRPIX_ADMISSION_FARM_CAPACITY", "250"))).farmCapacity()).isEqualTo(250);
    }

    @Test
    void theCapacityBoundsAreAdmissionsLimits() {
        String rate = Long.toString((long) Limits.MAX_RATE);
        String burst = Long.toString((long) Limits.MAX_BURST);
        assertThat(AdmissionConfig.from(load(Map.of("FAIRPIX_ADMISSION_FARM_CAPACITY", rate, "FAIRPIX_ADMISSION_POOL_BURST", burst))).poolBurst())
                .isEqualTo(Limits.MAX_BURST);
        assertThatThrownBy(() -> load(Map.of("FAIRPIX_ADMISSION_FARM_CAPACITY", Limits.MAX_RATE + 1 + "")))
                .hasMessage("FAIRPIX_ADMISSION_FARM_CAPACITY must be measured or 0.." + rate);
        assertThatThrownBy(() -> load(Map.of("FAIRPIX_ADMISSION_POOL_BURST", Limits.MAX_BURST + 1 + "")))
                .hasMessage("FAIRPIX_ADMISSION_POOL_BURST must be 0.." + burst);
    }

    @Test
    void everyPolicyButCostExceedsBurstMayBeShadowed() {
        var shadowable = EnumSet.complementOf(EnumSet.of(Policy.COST_EXCEEDS_BURST)).stream().map(Policy::id).toList();

        assertThat(((Constraint.Choice) Setting.ADMISSION_SHADOW.constraint()).values()).containsExactlyElementsOf(shadowable);
        assertThatThrownBy(() -> load(Map.of("FAIRPIX_ADMISSION_SHADOW", "cost-exceeds-burst"))).hasMessageContaining("FAIRPIX_ADMISSION_SHADOW");
    }

    @Test
    void redisDownNamesTheEnumsConstants() {
        assertThat(((Constraint.Choice) Setting.ADMISSION_REDIS_DOWN.constraint()).values())
                .containsExactlyElementsOf(Arrays.stream(AdmissionConfig.RedisDown.values()).map(d -> d.name().toLowerCase(Locale.ROOT)).toList());
    }
}
