package com.fairpix.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.http.Problems;
import com.fairpix.core.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The operations beyond resize/encode: parsing, defaults, every problem in one 400, JSON round trip. */
class JobSpecOperationsTest {
    static final String ALL = """
            {"variants":{"all":[
              {"op":"resize","width":300,"height":200,"fit":"cover","gravity":"smart"},
              {"op":"resize","width":100,"fit":"inside"},
              {"op":"resize","height":100,"fit":"outside","withoutEnlargement":true},
              {"op":"crop","left":5,"top":6,"width":70,"height":80},
              {"op":"rotate","angle":270},
              {"op":"flip"},{"op":"flop"},{"op":"grayscale"},
              {"op":"blur","sigma":2.5},
              {"op":"sharpen","sigma":1.2,"amount":0.8},
              {"op":"watermark","key":"tenants/acme/logo.png","gravity":"northwest","opacity":0.7,"scale":0.3,"margin":4},
              {"op":"background","colour":"#FF8000"},
              {"op":"encode","format":"jpeg","quality":85,"progressive":true}]}}
            """;

    @Test
    void everyOperationParsesWithItsValues() {
        List<Operation> ops = JobSpec.parse(ALL, "acme").variants().get("all");
        assertThat(ops).containsExactly(
                new Operation.Resize(300, 200, Operation.Fit.COVER, false, Operation.Gravity.SMART),
                new Operation.Resize(100, null, Operation.Fit.INSIDE, false),
                new Operation.Resize(null, 100, Operation.Fit.OUTSIDE, true),
                new Operation.Crop(5, 6, 70, 80),
                new Operation.Rotate(270),
                new Operation.Flip(), new Operation.Flop(), new Operation.Grayscale(),
                new Operation.Blur(2.5),
                new Operation.Sharpen(1.2, 0.8),
                new Operation.Watermark("tenants/acme/logo.png", Operation.Gravity.NORTHWEST, 0.7, 0.3, 4),
                new Operation.Background("#ff8000"),
                new Operation.Encode("jpeg", 85, true, 6, false));
        assertThat(new Operation.Background("#ff8000").bgr()).containsExactly(0, 0x80, 0xff);
    }

    @Test
    void defaultsAreQuality80BaselineLossyWebpPngLevel6AndSoutheastHalfOpaqueWatermarks() {
        JobSpec spec = JobSpec.parse("""
                {"variants":{"a":[{"op":"watermark","key":"tenants/t/w.png"},{"op":"encode","format":"webp"}],
                             "b":[{"op":"sharpen"},{"op":"resize","width":10,"gravity":"center","fit":"cover","height":10}]}}""", "t");
        assertThat(spec.variants().get("a")).containsExactly(
                new Operation.Watermark("tenants/t/w.png", Operation.Gravity.SOUTHEAST, 0.5, 0.25, 10),
                new Operation.Encode("webp", 80, false, 6, false));
        assertThat(spec.variants().get("b").get(0)).isEqualTo(new Operation.Sharpen(1.0, 1.0));
        assertThat(spec.variants().get("b").get(2)).isEqualTo(new Operation.Encode("jpeg", 80));
        assertThat(spec.watermarkKeys()).containsExactly("tenants/t/w.png");
    }

    @Test
    void everyProblemWithTheNewOperationsIsListedInOne400() {
        ApiProblem p = Problems.of(catchThrowableOfType(Rejected.class, () -> JobSpec.parse("""
                {"variants":{"a":[
                  {"op":"rotate","angle":45},
                  {"op":"crop","left":-1,"width":10},
                  {"op":"blur"},
                  {"op":"sharpen","sigma":50},
                  {"op":"resize","width":10,"height":10,"fit":"contain","gravity":"north"},
                  {"op":"resize","width":10,"height":10,"fit":"cover","gravity":"up"},
                  {"op":"watermark","key":"tenants/other/logo.png","opacity":2},
                  {"op":"background","colour":"red"},
                  {"op":"flip","x":1},
                  {"op":"encode","format":"png","progressive":true,"compression":10,"lossless":true}]}}
                """, "acme")));
        assertThat(p.status()).isEqualTo(400);
        @SuppressWarnings("unchecked")
        List<String> errors = (List<String>) p.extensions().get("errors");
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[0]").contains("rotate needs angle 90, 180 or 270"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[1]").contains("left must be an integer"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[1]").contains("crop needs width and height"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[2]").contains("blur needs sigma"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[3]").contains("sigma must be a number 0.3–10"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[4]").contains("gravity applies only to fit cover"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[5]").contains("gravity must be one of"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[6]").contains("own prefix tenants/acme/"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[6]").contains("opacity must be a number 0–1"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[7]").contains("#rrggbb"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[8]").contains("unknown member 'x'"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[9]").contains("progressive applies only to jpeg"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[9]").contains("compression must be an integer 0–9"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("a[9]").contains("lossless applies only to webp"));
        assertThat(errors).hasSize(14);
    }

    @Test
    void watermarkKeysThatEscapeTheTenantPrefixAreRejected() {
        for (String key : List.of("tenants/acme/../other/x.png", "tenants/acmex/x.png", "x.png", "tenants/acme//x.png")) {
            ApiProblem p = Problems.of(catchThrowableOfType(Rejected.class, () -> JobSpec.parse(
                    "{\"variants\":{\"a\":[{\"op\":\"watermark\",\"key\":\"" + key + "\"}]}}", "acme")));
            assertThat(p).as(key).isNotNull();
            assertThat(p.detail()).contains("tenants/acme/");
        }
    }

    @Test
    void allOperationsSurviveTheJsonRoundTripOfTheKafkaMessage() {
        JobSpec spec = JobSpec.parse(ALL, "acme");
        assertThat(Json.read(Json.write(spec), JobSpec.class)).isEqualTo(spec);
    }
}
