package com.fairpix.core.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one Jackson configuration every fairpix module uses: ISO-8601 instants, nulls left out.
 * Blackbird generates property accessors instead of reflective calls: job records, messages and
 * events are (de)serialised several times per job on the hot path (docs/overhead.md).
 */
public final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .registerModule(new com.fasterxml.jackson.module.blackbird.BlackbirdModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    private Json() {}

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** Serialises {@code value}; a failure here is a programming error, so it is unchecked. */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static byte[] writeBytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses JSON we wrote ourselves (Redis, Kafka); malformed input is unchecked. */
    public static <T> T read(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot parse " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    public static <T> T read(byte[] json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot parse " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }
}
