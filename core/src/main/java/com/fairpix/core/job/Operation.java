package com.fairpix.core.job;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** One step of a variant, applied in order to the decoded source. Serialised with an {@code op} member. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "op")
@JsonSubTypes({
    @JsonSubTypes.Type(value = Operation.Resize.class, name = "resize"),
    @JsonSubTypes.Type(value = Operation.Encode.class, name = "encode")
})
public sealed interface Operation {

    /** How a resize fits the source into width × height, as sharp and imgproxy name it. */
    enum Fit {
        /** Scale to fit inside the box, keeping the aspect ratio; output may be smaller on one side. */
        @com.fasterxml.jackson.annotation.JsonProperty("contain") CONTAIN,
        /** Scale to cover the box, keeping the aspect ratio, then centre-crop to exactly the box. */
        @com.fasterxml.jackson.annotation.JsonProperty("cover") COVER,
        /** Stretch to exactly the box, ignoring the aspect ratio. */
        @com.fasterxml.jackson.annotation.JsonProperty("fill") FILL
    }

    /**
     * Resize to a box in pixels. Either side may be null (then only the other constrains).
     *
     * @param withoutEnlargement never upscale a source smaller than the box
     */
    record Resize(Integer width, Integer height, Fit fit, boolean withoutEnlargement) implements Operation {}

    /** Output encoding: format jpeg | png | webp; quality 1–100 (jpeg, webp). */
    record Encode(String format, int quality) implements Operation {
        public String extension() {
            return format.equals("jpeg") ? "jpg" : format;
        }

        public String contentType() {
            return "image/" + format;
        }
    }
}
