package com.fairpix.core.job;

import java.util.List;

/**
 * Brightness, saturation and hue, as sharp's {@code modulate} (https://sharp.pixelplumbing.com/api-operation#modulate),
 * which libvips runs in CIE LCh: {@code L* × brightness + lightness}, {@code C* × saturation},
 * {@code h + hue}. Working in LCh rather than HSL (ImageMagick's {@code -modulate}) keeps a colour's
 * perceived lightness when its saturation or hue changes. Alpha is left as it was. A per-pixel
 * step: same size, and the same picture on a shrunk-on-load JPEG as on the full decode.
 *
 * @param brightness multiplier of L*, 0–10 (1: unchanged; 0.5 halves the lightness)
 * @param saturation multiplier of chroma C*, 0–10 (1: unchanged; 0: grey)
 * @param hue        rotation of the hue angle, degrees, −360–360 (0: unchanged)
 * @param lightness  added to L* (0 black – 100 white), −100–100 (0: unchanged)
 */
public record Modulate(double brightness, double saturation, double hue, double lightness) implements Operation {
    public static final OperationType<Modulate> TYPE = new OperationType<>("modulate", Modulate.class,
            List.of("brightness", "saturation", "hue", "lightness")) {
        @Override
        public Modulate parse(OperationInput in) {
            in.unknownMembers();
            // Without any member the step would change nothing: most likely a misspelt member, so say so.
            if (members().stream().noneMatch(in::has)) {
                in.error("modulate needs at least one of brightness, saturation (multipliers 0–10), hue (degrees −360–360), lightness (−100–100)");
                return null;
            }
            Double brightness = in.number("brightness", 0, 10, 1.0);
            Double saturation = in.number("saturation", 0, 10, 1.0);
            Double hue = in.number("hue", -360, 360, 0.0);
            Double lightness = in.number("lightness", -100, 100, 0.0);
            if (brightness == null || saturation == null || hue == null || lightness == null) return null;
            return new Modulate(brightness, saturation, hue, lightness);
        }
        // Geometry, source pixels and memory: the defaults (same size; per pixel; the worker's step
        // works in bounded strips, its output is one image of the input's size).
    };
}
