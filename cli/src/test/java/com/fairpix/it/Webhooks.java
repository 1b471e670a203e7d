package com.fairpix.it;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.job.JobEvent;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.KafkaSupport;
import com.fairpix.core.kafka.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** What the webhook ITs share: the test config and a way to put job events on fairpix.events. */
final class Webhooks {
    private Webhooks() {}

    /** The stack's config, with http and 127.0.0.1 allowed for the local receiver and a short retry schedule. */
    static FairpixConfig config(String retrySchedule) {
        return Farm.config()
                .with(Setting.WEBHOOKS_ALLOW_HTTP, "true")
                .with(Setting.WEBHOOKS_ALLOW_LIST, "127.0.0.1/32")
                .with(Setting.WEBHOOKS_RETRY_SCHEDULE, retrySchedule);
    }

    /** A completion event as the worker publishes it (same stable id for the same job and state). */
    static JobEvent completion(String tenant, String jobId, boolean succeeded, String errorMessage, int attempt) {
        JobState state = succeeded ? JobState.DONE : JobState.FAILED;
        return new JobEvent(JobEvent.SCHEMA_VERSION, "evt_" + jobId + "_" + state.name().toLowerCase(), succeeded ? "job.succeeded" : "job.failed",
                Instant.now(), jobId, tenant, state,
                succeeded ? Map.of("thumb", new JobRecord.Result("k", "webp", "image/webp", 256, 256, 1234)) : Map.of(),
                succeeded ? null : new JobRecord.Error("decode-failed", errorMessage), attempt * 4L + 2);
    }

    static void publish(FairpixConfig config, JobEvent... events) throws Exception {
        try (KafkaProducer<String, byte[]> p = KafkaSupport.producer(config.get(Setting.KAFKA_BOOTSTRAP), "it-webhooks")) {
            for (JobEvent e : events) p.send(new ProducerRecord<>(Topics.EVENTS, e.tenant(), Json.writeBytes(e))).get(15, TimeUnit.SECONDS);
        }
    }

    static void await(java.util.function.BooleanSupplier condition, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) org.junit.jupiter.api.Assertions.fail("timed out after " + timeout + " waiting for " + what);
            Thread.sleep(50);
        }
    }
}
