package com.fairpix.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TenantTagsTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T00:00:00Z"));

    @Test
    void tenThousandTenantsProduceAtMostLimitPlusOneLabelValues() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TenantTags tags = new TenantTags(registry, 20, clock::nanoTime);
        for (int i = 0; i < 10_000; i++) registry.counter("fairpix.test", "tenant", tags.tag("t" + i)).increment();

        Set<String> values = new HashSet<>();
        registry.find("fairpix.test").counters().forEach(c -> values.add(c.getId().getTag("tenant")));
        assertThat(values).hasSize(21).contains(TenantTags.OTHER);
    }

    @Test
    void rerankingGivesTheMostActiveTenantsTheirOwnLabelAndRemovesTheMetersOfThoseThatDropOut() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TenantTags tags = new TenantTags(registry, 2, clock::nanoTime);
        registry.counter("fairpix.test", "tenant", tags.tag("early-a")).increment();
        registry.counter("fairpix.test", "tenant", tags.tag("early-b")).increment();
        for (int i = 0; i < 100; i++) {
            tags.tag("busy-1");
            tags.tag("busy-2");
        }
        assertThat(tags.tag("busy-1")).isEqualTo(TenantTags.OTHER);

        tags.rerank();

        assertThat(tags.tag("busy-1")).isEqualTo("busy-1");
        assertThat(tags.tag("busy-2")).isEqualTo("busy-2");
        assertThat(tags.tag("early-a")).isEqualTo(TenantTags.OTHER);
        assertThat(registry.find("fairpix.test").tag("tenant", "early-a").counter()).isNull();
    }

    @Test
    void theFirstTagMoreThanAMinuteAfterTheLastRankingRanksAgain() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TenantTags tags = new TenantTags(registry, 1, clock::nanoTime);
        tags.tag("early");
        for (int i = 0; i < 10; i++) tags.tag("busy");
        clock.advance(Duration.ofSeconds(60));
        assertThat(tags.tag("busy")).as("a minute exactly: the window is not over").isEqualTo(TenantTags.OTHER);
        clock.advance(Duration.ofMillis(1));
        assertThat(tags.tag("busy")).as("ranked by the last window's activity").isEqualTo("busy");
        assertThat(tags.peek("early")).isEqualTo(TenantTags.OTHER);
    }
}
