package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.within;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.job.JobCost;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Modulate;
import com.fairpix.core.job.Operation;
import com.fairpix.core.job.OutputSize;
import com.fairpix.core.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opencv.core.Core;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.imgcodecs.Imgcodecs;

/** modulate (sharp's brightness, saturation, hue, lightness in LCh): the spec, its geometry, and its pixels. */
class ModulateTest {
    static final Modulate SAME = new Modulate(1, 1, 0, 0);

    static Modulate parseOne(String op) {
        return (Modulate) JobSpec.parse("{\"variants\":{\"v\":[" + op + "]}}").variants().get("v").get(0);
    }

    @SuppressWarnings("unchecked")
    static List<String> problems(String op) {
        return (List<String>) catchThrowableOfType(Rejected.class, () -> JobSpec.parse("{\"variants\":{\"v\":[" + op + "]}}")).members().get("errors");
    }

    // --- the spec ------------------------------------------------------------------------------

    @Test
    void parsesItsMembersAndDefaultsTheRestToNoChange() {
        assertThat(parseOne("{\"op\":\"modulate\",\"brightness\":1.2,\"saturation\":0.5,\"hue\":-90,\"lightness\":10}"))
                .isEqualTo(new Modulate(1.2, 0.5, -90, 10));
        assertThat(parseOne("{\"op\":\"modulate\",\"saturation\":0}")).isEqualTo(new Modulate(1, 0, 0, 0));
    }

    @Test
    void refusesOutOfRangeUnknownAndMissingMembersInOne400() {
        assertThat(problems("{\"op\":\"modulate\",\"brightness\":-1,\"hue\":400,\"saturate\":2}")).containsExactly(
                "variants.v[0]: unknown member 'saturate'",
                "variants.v[0]: brightness must be a number 0–10",
                "variants.v[0]: hue must be a number -360–360");
        assertThat(problems("{\"op\":\"modulate\"}")).singleElement().asString().contains("modulate needs at least one of brightness");
    }

    @Test
    void survivesTheJobMessagesJsonRoundTrip() throws Exception {
        JobSpec spec = JobSpec.parse("{\"variants\":{\"v\":[{\"op\":\"modulate\",\"hue\":30},{\"op\":\"encode\",\"format\":\"png\"}]}}");
        String json = Json.write(spec);
        assertThat(json).contains("\"op\":\"modulate\"");
        assertThat(Json.mapper().readValue(json, JobSpec.class)).isEqualTo(spec);
    }

    @Test
    void keepsTheSizeAndLetsAJpegShrinkOnLoad() throws Exception {
        JobSpec plain = JobSpec.parse("{\"variants\":{\"v\":[{\"op\":\"resize\",\"width\":256,\"height\":256}]}}");
        JobSpec modulated = JobSpec.parse("{\"variants\":{\"v\":[{\"op\":\"modulate\",\"saturation\":1.5},{\"op\":\"resize\",\"width\":256,\"height\":256}]}}");
        ImageHeader header = ImageHeader.read(TestImages.jpeg(2048, 1536));
        JobSpec blurred = JobSpec.parse("{\"variants\":{\"v\":[{\"op\":\"blur\",\"sigma\":2},{\"op\":\"resize\",\"width\":256,\"height\":256}]}}");
        // A per-pixel step gives the same picture on a reduced decode: the reduction is the resize's
        // alone (2048 → 256 = 1/8), unlike a blur, whose sigma is in source pixels.
        assertThat(JobCost.jpegReduction(header, modulated)).isEqualTo(JobCost.jpegReduction(header, plain)).isEqualTo(8);
        assertThat(JobCost.jpegReduction(header, blurred)).isEqualTo(1);
        assertThat(OutputSize.of(List.<Operation>of(SAME), 300, 200)).isEqualTo(new OutputSize.Estimate(300, 200, 60_000, 300));
    }

    // --- the pixels ----------------------------------------------------------------------------

    @Test
    void noChangeGivesBackTheSamePixelsWithinOneLevel() {
        Mat noise = StepImages.noise(64, 48, 7);
        Mat out = ModulateStep.apply(noise, SAME);
        Mat diff = new Mat();
        Core.absdiff(noise, out, diff);
        assertThat(Core.minMaxLoc(diff.reshape(1)).maxVal).isLessThanOrEqualTo(1);
    }

    @Test
    void saturationZeroMakesGreyOfTheSameLightness() {
        Mat orange = StepImages.solid(8, 8, 0, 128, 255); // BGR
        double[] px = StepImages.at(ModulateStep.apply(orange, new Modulate(1, 0, 0, 0)), 3, 3);
        assertThat(px[0]).isCloseTo(px[1], within(1.0)).isCloseTo(px[2], within(1.0));
        // Orange #ff8000 has L* 67.1; the grey of L* 67.1 is sRGB 164 (not the 128-ish of a channel average).
        assertThat(px[1]).isCloseTo(164, within(2.0));
    }

    @Test
    void brightnessScalesLightnessNotTheChannels() {
        // Grey 128 has L* 53.6; half of it, 26.8, is sRGB 63 (Y = ((26.8 + 16) / 116)³ = 0.050, gamma-encoded).
        double[] px = StepImages.at(ModulateStep.apply(StepImages.solid(4, 4, 128, 128, 128), new Modulate(0.5, 1, 0, 0)), 0, 0);
        assertThat(px).containsExactly(new double[] {63, 63, 63}, within(2.0));
        // lightness adds to L*: +100 from any grey is white.
        assertThat(StepImages.at(ModulateStep.apply(StepImages.solid(4, 4, 20, 20, 20), new Modulate(1, 1, 0, 100)), 1, 1))
                .containsExactly(255, 255, 255);
    }

    @Test
    void hueTurnsRedTowardsGreenAndCyanAndKeepsAlpha() {
        Mat red = FilterStepsTest.withAlpha(StepImages.solid(4, 4, 0, 0, 255), 77);
        double[] turned90 = StepImages.at(ModulateStep.apply(red, new Modulate(1, 1, 90, 0)), 0, 0);
        assertThat(turned90[1]).as("green").isGreaterThan(turned90[2] - 1).isGreaterThan(100);
        assertThat(turned90[3]).as("alpha").isEqualTo(77);
        double[] opposite = StepImages.at(ModulateStep.apply(red, new Modulate(1, 1, 180, 0)), 0, 0);
        assertThat(opposite[2]).as("red").isLessThan(60);
        assertThat(opposite[0]).as("blue").isGreaterThan(150);
    }

    @Test
    void stripsJoinIntoTheOneCallResultWithAndWithoutAlpha() {
        Modulate op = new Modulate(1.3, 0.7, 45, -5);
        for (Mat image : List.of(StepImages.noise(50, 41, 9), FilterStepsTest.withAlpha(StepImages.noise(50, 41, 10), 200))) {
            Mat strips = ModulateStep.apply(image, op, Deadline.none(), 7);
            assertThat(StepImages.same(strips, ModulateStep.apply(image, op, Deadline.none(), 41))).isTrue();
            // Each strip was written into the result (a last strip of 41 − 35 = 6 rows included), not left blank.
            assertThat(Core.mean(strips.submat(35, 41, 0, 50)).val[0]).isGreaterThan(50);
            if (image.channels() == 4) assertThat(StepImages.at(strips, 49, 40)[3]).isEqualTo(200);
        }
    }

    @Test
    void runsFromASpecThroughThePipeline() throws Exception {
        byte[] png = StepImages.encode(StepImages.solid(40, 30, 0, 128, 255), ".png");
        JobSpec spec = JobSpec.parse("{\"variants\":{\"grey\":[{\"op\":\"modulate\",\"saturation\":0},{\"op\":\"encode\",\"format\":\"png\"}]}}");
        Map<String, ImagePipeline.Output> out = new ImagePipeline(100_000_000L).process(png, spec);
        Mat grey = Imgcodecs.imdecode(new MatOfByte(out.get("grey").data()), Imgcodecs.IMREAD_UNCHANGED);
        assertThat(grey.size()).isEqualTo(new org.opencv.core.Size(40, 30));
        assertThat(StepImages.at(grey, 20, 15)).containsExactly(new double[] {164, 164, 164}, within(2.0));
    }
}
