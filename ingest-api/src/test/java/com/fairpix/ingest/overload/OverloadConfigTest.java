package com.fairpix.ingest.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The overload settings are checked where they are read, and on every config load. */
class OverloadConfigTest {
    @Test
    void theShippedDefaultsMakeAValidConfigNamedByHostAndPortUnlessANodeIdIsSet() {
        OverloadConfig c = OverloadConfig.from(FairpixConfig.load(Map.of(), Map.of()), "10.0.0.7:8080");
        assertThat(c.nodeId()).isEqualTo("10.0.0.7:8080");
        assertThat(c.shedding()).isTrue();
        assertThat(OverloadConfig.from(FairpixConfig.load(Map.of(Setting.NODE_ID.env(), "ingest-1"), Map.of()), "x").nodeId()).isEqualTo("ingest-1");
    }

    @Test
    void aValueOutOfRangeIsRefusedOnLoadNamingItsSetting() {
        Map<String, String> refused = Map.of(
                Setting.RAMP_START.env(), "0",
                Setting.RAMP_FACTOR.env(), "1",
                Setting.RAMP_STEP_MS.env(), "0",
                Setting.RAMP_CAPACITY.env(), "-1",
                Setting.BACKLOG_JOB_SECONDS.env(), "NaN",
                Setting.BACKLOG_SOFT_SECONDS.env(), "-5",
                Setting.BACKLOG_HARD_SECONDS.env(), "-5",
                Setting.BACKLOG_RESERVED_SHARE.env(), "1.5",
                Setting.BACKLOG_READ_MS.env(), "0",
                Setting.KAFKA_PRODUCE_TIMEOUT_MS.env(), "0");
        refused.forEach((env, value) -> assertThatThrownBy(() -> FairpixConfig.load(Map.of(env, value), Map.of()))
                .as(env + "=" + value).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(env));
    }
}
