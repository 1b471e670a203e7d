package com.fairpix.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetricHelpTest {
    @Test
    void everyMetricNameHasAHelpText() throws Exception {
        List<String> missing = new ArrayList<>();
        for (Field f : MetricNames.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                String name = (String) f.get(null);
                if (MetricHelp.of(name) == null || MetricHelp.of(name).isBlank()) missing.add(f.getName() + " = " + name);
            }
        }
        assertThat(missing).as("MetricNames without a HELP in MetricHelp").isEmpty();
        assertThat(MetricHelp.HELP).hasSizeGreaterThanOrEqualTo(40);
    }

    @Test
    void aCounterMadeWithoutADescriptionIsExportedWithItsHelp() {
        PrometheusMeterRegistry r = MetricHelp.applyTo(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        r.counter(MetricNames.JOBS_COMPLETED, "pool", "cpu").increment();
        io.micrometer.core.instrument.Gauge.builder("system.cpu.count", () -> 2).register(r);
        io.micrometer.core.instrument.Gauge.builder("fairpix.own", () -> 1).description("its own text").register(r);
        String text = r.scrape();
        assertThat(text).contains("# HELP fairpix_jobs_completed_total Jobs a worker finished");
        assertThat(text).contains("# HELP fairpix_own its own text");
        assertThat(text).contains("system_cpu_processors").doesNotContain("system_cpu_count");
    }
}
