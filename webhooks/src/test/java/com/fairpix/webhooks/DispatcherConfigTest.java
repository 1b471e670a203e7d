package com.fairpix.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The webhook settings are parsed here (core cannot see the guard or the schedule) and checked on every load; each error names its setting. */
class DispatcherConfigTest {
    static DispatcherConfig load(Setting setting, String value) {
        return DispatcherConfig.from(FairpixConfig.load(Map.of(), Map.of(setting, value)));
    }

    @Test
    void theDefaultsAreValid() {
        DispatcherConfig c = DispatcherConfig.from(FairpixConfig.load(Map.of(), Map.of()));
        assertThat(c.schedule().maxAttempts()).isEqualTo(8);
        assertThat(c.endpointConcurrency()).isEqualTo(4);
        assertThat(c.tenantConcurrency()).isEqualTo(16);
        assertThat(c.maxInFlight()).isEqualTo(256);
        assertThat(c.secretOverlap()).isEqualTo(Duration.ofDays(1));
        assertThat(c.allowHttp()).isFalse();
        assertThat(c.allowList()).isEmpty();
    }

    @Test
    void aBadValueIsRefusedNamingItsSetting() {
        assertThatThrownBy(() -> load(Setting.WEBHOOKS_RETRY_SCHEDULE, "5s,soon"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_WEBHOOKS_RETRY_SCHEDULE").hasMessageContaining("'soon'");
        assertThatThrownBy(() -> load(Setting.WEBHOOKS_ALLOW_LIST, "127.0.0.1/33"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_WEBHOOKS_ALLOW_LIST");
        assertThatThrownBy(() -> load(Setting.WEBHOOKS_ALLOW_HTTP, "yes"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("FAIRPIX_WEBHOOKS_ALLOW_HTTP must be true or false, got yes");
        assertThatThrownBy(() -> load(Setting.WEBHOOKS_ENDPOINT_CONCURRENCY, "0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("FAIRPIX_WEBHOOKS_ENDPOINT_CONCURRENCY must be >= 1");
        assertThatThrownBy(() -> load(Setting.WEBHOOKS_TENANT_CONCURRENCY, "0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("FAIRPIX_WEBHOOKS_TENANT_CONCURRENCY must be >= 1");
        assertThatThrownBy(() -> load(Setting.WEBHOOKS_MAX_IN_FLIGHT, "many"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_WEBHOOKS_MAX_IN_FLIGHT");
        assertThatThrownBy(() -> load(Setting.WEBHOOKS_SECRET_OVERLAP_SECONDS, "-1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("FAIRPIX_WEBHOOKS_SECRET_OVERLAP_SECONDS must be >= 0");
    }

    /**
     * With this module on the class path, every load refuses what only it can parse (its Check,
     * found by the service loader), not only the processes that build a DispatcherConfig: fairpix
     * config, worker and autoscaler refuse a bad schedule too.
     */
    @Test
    void loadingAnyConfigRefusesABadRetrySchedule() {
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_WEBHOOKS_RETRY_SCHEDULE", "5s,soon"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_WEBHOOKS_RETRY_SCHEDULE").hasMessageContaining("'soon'");
        assertThatThrownBy(() -> FairpixConfig.load(Map.of(), Map.of()).with(Setting.WEBHOOKS_ALLOW_LIST, "10.0.0.0/99"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FAIRPIX_WEBHOOKS_ALLOW_LIST");
    }

    @Test
    void theGuardFollowsTheAllowSettings() throws Exception {
        DispatcherConfig c = DispatcherConfig.from(FairpixConfig.load(Map.of(), Map.of(Setting.WEBHOOKS_ALLOW_HTTP, "true",
                Setting.WEBHOOKS_ALLOW_LIST, "127.0.0.1/32")));
        java.net.InetAddress loopback = java.net.InetAddress.getByName("127.0.0.1");
        assertThat(c.guard(host -> new java.net.InetAddress[] {loopback}).check("http://hooks.test:8080/x").addresses()).containsExactly(loopback);
    }
}
