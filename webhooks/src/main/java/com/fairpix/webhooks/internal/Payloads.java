package com.fairpix.webhooks.internal;

import com.fairpix.core.job.JobEvent;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The thin webhook payload of a job event: type, timestamp, and data with the job id, tenant,
 * status, the results' sizes (no URLs: the receiver fetches them with its API key), the error if
 * any and the monotonic job version. UTF-8 JSON.
 */
final class Payloads {
    private static final ObjectWriter WRITER = Json.mapper().writer().with(JsonGenerator.Feature.COMBINE_UNICODE_SURROGATES_IN_UTF8);

    private Payloads() {}

    /** The payload's bytes, exactly as every attempt sends them. */
    static byte[] of(JobEvent event) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("jobId", event.jobId());
        data.put("tenant", event.tenant());
        data.put("status", event.state());
        data.put("version", event.jobVersion());
        if (event.results() != null && !event.results().isEmpty()) {
            Map<String, Object> results = new LinkedHashMap<>();
            event.results().forEach((name, r) -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("format", r.format());
                m.put("width", r.width());
                m.put("height", r.height());
                m.put("size", r.size());
                results.put(name, m);
            });
            data.put("results", results);
        }
        if (event.error() != null) data.put("error", event.error());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", event.type());
        body.put("timestamp", event.timestamp());
        body.put("data", data);
        try {
            // UTF-8 throughout: characters beyond the BMP (emoji) as their 4 UTF-8 bytes, not as \\u surrogate escapes.
            return WRITER.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
