package com.fairpix.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.error.Rejected;
import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.http.Problems;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a spec may ask for: sizes, counts and ranges, before and after the source's size is known. */
class SpecLimitsTest {
    private static final SpecLimits LIMITS = SpecLimits.DEFAULTS;

    private static List<String> errors(String json, SpecLimits limits) {
        ApiProblem p = Problems.of(catchThrowableOfType(Rejected.class, () -> JobSpec.parse(json, "acme", limits)));
        assertThat(p).as("expected a problem for %s", json).isNotNull();
        assertThat(p.status()).isEqualTo(400);
        @SuppressWarnings("unchecked") List<String> errors = (List<String>) p.extensions().get("errors");
        return errors;
    }

    @Test
    void aFillBoxOverTheOutputPixelsIsRefusedWhateverTheSource() {
        // The 68-byte 1x1 PNG attack: the box alone is 268 million pixels.
        List<String> errors = errors("""
                {"variants":{"big":[{"op":"resize","width":16384,"height":16384,"fit":"fill"},{"op":"encode","format":"png","compression":0}]}}""", LIMITS);
        assertThat(errors).singleElement().asString().contains("268435456 pixels", "at most 50000000");
    }

    @Test
    void aCropBoxOverTheOutputPixelsIsRefused() {
        assertThat(errors("{\"variants\":{\"c\":[{\"op\":\"crop\",\"width\":10000,\"height\":10000}]}}", LIMITS))
                .singleElement().asString().contains("crop 10000x10000");
    }

    @Test
    void everyLimitBrokenAtOnceIsListed() {
        SpecLimits tight = new SpecLimits(65_536, 2, 4, 32, 1000, 1_000_000, 5);
        String key = "tenants/acme/" + "k".repeat(40) + ".png";
        List<String> errors = errors("{\"variants\":{"
                + "\"a\":[{\"op\":\"resize\",\"width\":2000},{\"op\":\"blur\",\"sigma\":6},{\"op\":\"watermark\",\"key\":\"" + key + "\"}],"
                + "\"b\":[{\"op\":\"flip\"},{\"op\":\"flop\"},{\"op\":\"grayscale\"},{\"op\":\"flip\"},{\"op\":\"encode\",\"format\":\"png\"}],"
                + "\"c\":[{\"op\":\"flip\"}]}}", tight);
        assertThat(errors).hasSize(5);
        assertThat(String.join("\n", errors)).contains("at most 2 variants", "width must be an integer 1–1000", "sigma must be a number 0.3–5",
                "watermark key is 57 bytes; at most 32", "variants.b: at most 4 operations");
    }

    @Test
    void aKeyWithControlCharactersIsRefused() {
        assertThat(errors("{\"variants\":{\"w\":[{\"op\":\"watermark\",\"key\":\"tenants/acme/a\\r\\n\\u001b[31m.png\"}]}}", LIMITS))
                .singleElement().asString().contains("control characters");
    }

    @Test
    void aSpecOverItsByteLimitIs413() {
        SpecLimits small = new SpecLimits(256, 16, 16, 512, 16384, 50_000_000, 50);
        String spec = "{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":10}]},\"pad\":\"" + "é".repeat(200) + "\"}";
        ApiProblem p = Problems.of(catchThrowableOfType(Rejected.class, () -> JobSpec.parse(spec, "acme", small)));
        assertThat(p.status()).isEqualTo(413);
        assertThat(p.slug()).isEqualTo("spec-too-large");
        assertThat(p.extensions()).containsEntry("limit", 256);
    }

    @Test
    void upscalingASmallSourceOverTheLimitIsAnOutputProblem() {
        JobSpec spec = JobSpec.parse("{\"variants\":{\"ok\":[{\"op\":\"resize\",\"width\":256}],\"huge\":[{\"op\":\"resize\",\"width\":16000,\"height\":16000}]}}", "acme", LIMITS);
        assertThat(spec.outputProblems(100, 100, LIMITS)).singleElement().asString()
                .startsWith("variants.huge: makes an image of 256000000 pixels from this 100x100 source");
        assertThat(spec.outputProblems(100, 100, LIMITS.forTenant(1_000_000_000L))).hasSize(1);
        assertThat(spec.outputProblems(100, 100, new SpecLimits(65_536, 16, 16, 512, 16384, 300_000_000L, 50))).isEmpty();
    }

    @Test
    void coversIntermediateCountsThoughTheCropIsSmall() {
        // A 1x10000 strip covering 1000x1000 is scaled to 1000x10,000,000 before the crop.
        JobSpec spec = JobSpec.parse("{\"variants\":{\"sq\":[{\"op\":\"resize\",\"width\":1000,\"height\":1000,\"fit\":\"cover\"}]}}", "acme", LIMITS);
        assertThat(OutputSize.of(spec, 1, 10_000).get("sq")).isEqualTo(new OutputSize.Estimate(1000, 1000, 10_000_000_000L, 10_000_000));
        assertThat(spec.outputProblems(1, 10_000, LIMITS)).hasSize(1);
        assertThat(spec.outputProblems(4000, 3000, LIMITS)).isEmpty();
    }

    @Test
    void theTenantsMaxPixelsLowersTheOutputLimit() {
        JobSpec spec = JobSpec.parse("{\"variants\":{\"v\":[{\"op\":\"resize\",\"width\":2000,\"height\":2000,\"fit\":\"fill\"}]}}", "acme", LIMITS);
        assertThat(spec.outputProblems(100, 100, LIMITS)).isEmpty();
        assertThat(spec.outputProblems(100, 100, LIMITS.forTenant(1_000_000))).hasSize(1);
    }

    @Test
    void estimatesFollowTheSteps() {
        List<Operation> ops = JobSpec.parse("{\"variants\":{\"v\":[{\"op\":\"rotate\",\"angle\":90},{\"op\":\"resize\",\"width\":300},"
                + "{\"op\":\"crop\",\"left\":10,\"top\":10,\"width\":500,\"height\":100}]}}").variants().get("v");
        // 4000x3000 → rotated 3000x4000 → width 300: 300x400 → crop clipped at the right edge: 290x100
        assertThat(OutputSize.of(ops, 4000, 3000)).isEqualTo(new OutputSize.Estimate(290, 100, 12_000_000, 4000));
    }

    @Test
    void limitsComeFromTheConfigAndAreValidated() {
        FairpixConfig c = FairpixConfig.load(Map.of(Setting.SPEC_MAX_VARIANTS.env(), "3", Setting.SPEC_MAX_BLUR_SIGMA.env(), "20"), Map.of());
        assertThat(SpecLimits.from(c).maxVariants()).isEqualTo(3);
        assertThat(SpecLimits.from(c).maxBlurSigma()).isEqualTo(20);
        // Each limit's range is its setting's constraint; one load reports every bad value.
        assertThatThrownBy(() -> FairpixConfig.load(Map.of(Setting.SPEC_MAX_BYTES.env(), "100", Setting.SPEC_MAX_VARIANTS.env(), "0"), Map.of()))
                .hasMessageContaining(Setting.SPEC_MAX_BYTES.env()).hasMessageContaining(Setting.SPEC_MAX_VARIANTS.env());
        // Over the bound is an error at start, not a silent cap at 16 in the parser.
        assertThatThrownBy(() -> FairpixConfig.load(Map.of(Setting.SPEC_MAX_VARIANTS.env(), "32"), Map.of()))
                .hasMessageContaining(Setting.SPEC_MAX_VARIANTS.env());
        FairpixConfig sixteen = FairpixConfig.load(Map.of(Setting.SPEC_MAX_VARIANTS.env(), "16"), Map.of());
        StringBuilder seventeen = new StringBuilder("{\"variants\":{");
        for (int i = 0; i < 17; i++) seventeen.append(i == 0 ? "" : ",").append("\"v").append(i).append("\":[{\"op\":\"encode\",\"format\":\"png\"}]");
        assertThatThrownBy(() -> JobSpec.parse(seventeen.append("}}").toString(), "t", SpecLimits.from(sixteen)))
                .hasMessageContaining("at most 16 variants, got 17");
    }

    /** The setting's bound is written as a number in Setting (config cannot see JobSpec): it must stay JobSpec.MAX_SIDE. */
    @Test
    void theOutputSideSettingStopsAtTheLargestSideASpecMayName() {
        String side = Integer.toString(JobSpec.MAX_SIDE);
        assertThat(SpecLimits.from(FairpixConfig.load(Map.of(Setting.SPEC_MAX_OUTPUT_SIDE.env(), side), Map.of())).maxOutputSide()).isEqualTo(JobSpec.MAX_SIDE);
        assertThatThrownBy(() -> FairpixConfig.load(Map.of(Setting.SPEC_MAX_OUTPUT_SIDE.env(), Integer.toString(JobSpec.MAX_SIDE + 1)), Map.of()))
                .hasMessage(Setting.SPEC_MAX_OUTPUT_SIDE.env() + " must be 1.." + side);
    }

    @Test
    void aKeyIsMeasuredInUtf8BytesAsS3MeasuresItAndC1ControlsAreRefusedToo() {
        SpecLimits tight = new SpecLimits(65_536, 2, 4, 32, 1000, 1_000_000, 5);
        // 13 + 10 + 4 = 27 characters, but 13 + 30 + 4 = 47 UTF-8 bytes: over 32.
        String wide = "tenants/acme/" + "\u20ac".repeat(10) + ".png";
        assertThat(errors("{\"variants\":{\"w\":[{\"op\":\"watermark\",\"key\":\"" + wide + "\"}]}}", tight))
                .singleElement().asString().contains("watermark key is 47 bytes; at most 32");
        assertThat(errors("{\"variants\":{\"w\":[{\"op\":\"watermark\",\"key\":\"tenants/acme/a\\u0085b.png\"}]}}", LIMITS))
                .singleElement().asString().contains("control characters");
    }
}
