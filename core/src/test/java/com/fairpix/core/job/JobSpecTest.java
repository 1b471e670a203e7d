package com.fairpix.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.http.Problems;
import com.fairpix.core.json.Json;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** Parsing and validating job specs: what a tenant sends, and every error it gets back at once. */
class JobSpecTest {

    @Test
    void avifEncodeTakesQualityAndSpeedAndOtherFormatsRefuseSpeed() {
        JobSpec spec = JobSpec.parse("{\"variants\":{\"a\":[{\"op\":\"encode\",\"format\":\"avif\",\"quality\":50,\"speed\":8}],"
                + "\"b\":[{\"op\":\"encode\",\"format\":\"avif\"}]}}");
        assertThat(JobSpec.encodeOf(spec.variants().get("a"))).extracting(Operation.Encode::format, Operation.Encode::quality, Operation.Encode::speed)
                .containsExactly("avif", 50, 8);
        assertThat(JobSpec.encodeOf(spec.variants().get("b")).speed()).isEqualTo(Operation.Encode.DEFAULT_AVIF_SPEED);
        assertThat(JobSpec.encodeOf(spec.variants().get("a")).contentType()).isEqualTo("image/avif");
        ApiProblem p = Problems.of(catchThrowableOfType(Rejected.class, () -> JobSpec.parse(
                "{\"variants\":{\"a\":[{\"op\":\"encode\",\"format\":\"jpeg\",\"speed\":3}],\"b\":[{\"op\":\"encode\",\"format\":\"avif\",\"speed\":0}]}}")));
        assertThat(p.extensions().get("errors").toString())
                .contains("variants.a[0]: speed applies only to avif")
                .contains("variants.b[0]: speed must be an integer 1–9");
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @CsvSource(delimiter = '|', value = {
        "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8 | false | avif",
        "image/webp,*/*                                                   | false | webp",
        "image/avif;q=0, image/webp;q=0.5                                 | false | webp",
        "image/*                                                          | false | jpeg",
        "                                                                 | false | jpeg",
        "text/html                                                        | true  | png",
    })
    void autoEncodeBecomesTheBestFormatTheClientAccepts(String accept, boolean alpha, String expected) {
        JobSpec spec = JobSpec.parse("{\"variants\":{\"a\":[{\"op\":\"resize\",\"width\":100},{\"op\":\"encode\",\"format\":\"auto\",\"quality\":60}],"
                + "\"b\":[{\"op\":\"encode\",\"format\":\"png\"}]}}");

        JobSpec resolved = spec.resolveAuto(accept, alpha);

        assertThat(JobSpec.encodeOf(resolved.variants().get("a"))).extracting(Operation.Encode::format, Operation.Encode::quality).containsExactly(expected, 60);
        assertThat(resolved.variants().get("a").get(0)).isEqualTo(spec.variants().get("a").get(0));
        assertThat(JobSpec.encodeOf(resolved.variants().get("b")).format()).isEqualTo("png");
    }

    @Test
    void anEncodeStepFromAMessageWrittenBeforeAvifGetsTheDefaultSpeed() throws Exception {
        Operation op = Json.mapper().readValue("{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":80,\"progressive\":false,\"compression\":6,\"lossless\":false}", Operation.class);
        assertThat(((Operation.Encode) op).speed()).isEqualTo(Operation.Encode.DEFAULT_AVIF_SPEED);
        Operation round = Json.mapper().readValue(Json.mapper().writeValueAsString(new Operation.Encode("avif", 40, false, 6, false, 9)), Operation.class);
        assertThat(((Operation.Encode) round).speed()).isEqualTo(9);
    }

    @Test
    void validSpecKeepsVariantsAndOperationsInTheOrderGiven() {
        JobSpec spec = JobSpec.parse("""
                {"pool":"gpu","variants":{
                  "zoom":[{"op":"resize","width":2000,"height":1000,"fit":"fill","withoutEnlargement":true},{"op":"encode","format":"png"}],
                  "thumb":[{"op":"resize","width":256,"height":256,"fit":"cover"},{"op":"encode","format":"webp","quality":70}],
                  "avatar":[{"op":"resize","height":64},{"op":"encode","format":"jpg","quality":90}]}}
                """);

        assertThat(spec.pool()).isEqualTo("gpu");
        assertThat(spec.variants().keySet()).containsExactly("zoom", "thumb", "avatar");
        assertThat(spec.variants().get("zoom")).containsExactly(
                new Operation.Resize(2000, 1000, Operation.Fit.FILL, true),
                new Operation.Encode("png", 80));
        assertThat(spec.variants().get("thumb")).containsExactly(
                new Operation.Resize(256, 256, Operation.Fit.COVER, false),
                new Operation.Encode("webp", 70));
        assertThat(spec.variants().get("avatar")).containsExactly(
                new Operation.Resize(null, 64, Operation.Fit.CONTAIN, false),
                new Operation.Encode("jpeg", 90));
        assertThat(spec.operationCount()).isEqualTo(6);
    }

    @Test
    void variantWithoutEncodeGetsJpegQuality80Appended() {
        JobSpec spec = JobSpec.parse("{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":256}]}}");

        List<Operation> ops = spec.variants().get("thumb");
        assertThat(ops).hasSize(2);
        assertThat(ops.get(0)).isEqualTo(new Operation.Resize(256, null, Operation.Fit.CONTAIN, false));
        assertThat(JobSpec.encodeOf(ops)).isEqualTo(new Operation.Encode("jpeg", JobSpec.DEFAULT_QUALITY));
        assertThat(JobSpec.DEFAULT_QUALITY).isEqualTo(80);
        assertThat(spec.pool()).as("no pool: the tenant's default").isNull();
    }

    @Test
    void encodeOnlyVariantIsKeptAsItIs() {
        JobSpec spec = JobSpec.parse("{\"variants\":{\"copy\":[{\"op\":\"encode\",\"format\":\"webp\",\"quality\":1}]}}");

        assertThat(spec.variants().get("copy")).containsExactly(new Operation.Encode("webp", 1));
    }

    @Test
    void encodeNamesItsExtensionAndContentType() {
        assertThat(new Operation.Encode("jpeg", 80).extension()).isEqualTo("jpg");
        assertThat(new Operation.Encode("jpeg", 80).contentType()).isEqualTo("image/jpeg");
        assertThat(new Operation.Encode("webp", 80).extension()).isEqualTo("webp");
        assertThat(new Operation.Encode("png", 80).contentType()).isEqualTo("image/png");
    }

    @Test
    void specSurvivesTheJsonRoundTripOfTheKafkaMessage() {
        JobSpec spec = JobSpec.parse("""
                {"variants":{"b":[{"op":"resize","width":10,"height":20,"fit":"cover","withoutEnlargement":true}],
                             "a":[{"op":"encode","format":"png"}]}}
                """);

        JobSpec back = Json.read(Json.write(spec), JobSpec.class);

        assertThat(back).isEqualTo(spec);
        assertThat(back.variants().keySet()).containsExactly("b", "a");
    }

    @Test
    void everyProblemOfASpecIsListedInOneAnswer() {
        ApiProblem p = invalid("""
                {"priority":1,"variants":{"a":[
                  {"op":"swirl","degrees":90},
                  {"op":"resize","width":0,"height":10},
                  {"op":"resize","width":10,"fit":"cover"},
                  {"op":"encode","format":"png","quality":101},
                  {"op":"resize","width":5,"blur":3}]}}
                """);

        assertThat(p.status()).isEqualTo(400);
        assertThat(p.slug()).isEqualTo("invalid-spec");
        List<String> errors = errors(p);
        assertThat(errors).hasSize(7);
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("unknown member 'priority'"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("variants.a[0]").contains("unknown op 'swirl'"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("variants.a[1]").contains("width must be an integer 1–16384"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("variants.a[2]").contains("cover needs both width and height"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("variants.a[3]").contains("quality must be an integer 1–100"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("variants.a[3]").contains("encode must be the last operation"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("variants.a[4]").contains("unknown member 'blur'"));
        // The detail repeats every error, so a client that only prints 'detail' still sees them all.
        assertThat(p.detail()).contains(errors);
    }

    @Test
    void problemsAcrossVariantsAndTopLevelAreAllListed() {
        ApiProblem p = invalid("""
                {"pool":"tpu","variants":{"a":[{"op":"encode","format":"gif","quality":"80"}],"b c":[]}}
                """);

        List<String> errors = errors(p);
        assertThat(errors).hasSize(5);
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("pool must be cpu or gpu"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("variants.a[0]").contains("format must be one of jpeg, png, webp"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("variants.a[0]").contains("quality must be an integer"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("variant name 'b c'"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("variants.b c must be a non-empty list"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            unknown op             | [{"op":"swirl","width":5}]                                    | unknown op 'swirl'
            width 0                | [{"op":"resize","width":0,"height":10}]                       | width must be an integer 1–16384
            width over the max     | [{"op":"resize","width":16385,"height":10}]                   | width must be an integer 1–16384
            width not an integer   | [{"op":"resize","width":25.5,"height":10}]                    | width must be an integer 1–16384
            height as a string     | [{"op":"resize","width":10,"height":"64"}]                    | height must be an integer 1–16384
            resize without a size  | [{"op":"resize","fit":"contain"}]                             | resize needs width or height
            unknown fit            | [{"op":"resize","width":5,"fit":"stretch"}]                   | fit must be one of contain, cover, fill
            cover without height   | [{"op":"resize","width":5,"fit":"cover"}]                     | fit cover needs both width and height
            fill without width     | [{"op":"resize","height":5,"fit":"fill"}]                     | fit fill needs both width and height
            quality 101            | [{"op":"encode","format":"jpeg","quality":101}]               | quality must be an integer 1–100
            quality 0              | [{"op":"encode","format":"jpeg","quality":0}]                 | quality must be an integer 1–100
            encode without format  | [{"op":"encode"}]                                             | format must be one of jpeg, png, webp
            encode not last        | [{"op":"encode","format":"png"},{"op":"resize","width":5}]    | encode must be the last operation
            unknown member         | [{"op":"resize","width":5,"angle":90}]                        | unknown member 'angle'
            operation not object   | ["resize"]                                                    | must be an object with an 'op' member
            operation without op   | [{"width":5}]                                                 | must be an object with an 'op' member
            empty operation list   | []                                                            | must be a non-empty list of operations
            operations not a list  | {"op":"resize","width":5}                                     | must be a non-empty list of operations
            """)
    void eachKindOfOperationProblemIsReportedOnce(String problem, String ops, String message) {
        ApiProblem p = invalid("{\"variants\":{\"v\":" + ops + "}}");

        assertThat(p.status()).isEqualTo(400);
        assertThat(errors(p)).as(problem).singleElement().asString().contains(message).contains("variants.v");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "not json at all",
        "{\"variants\":",
        "{'variants':{}}",
    })
    void textThatIsNotJsonIsOneProblem(String spec) {
        ApiProblem p = invalid(spec);

        assertThat(p.status()).isEqualTo(400);
        assertThat(errors(p)).singleElement().asString().startsWith("spec is not valid JSON")
                .as("the parser's own settings stay out of the answer").doesNotContain("Source:", "StreamReadFeature", "REDACTED")
                .contains("(line 1, column ");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "{\"variants\":{\"a\":[{\"op\":\"encode\",\"format\":\"png\"}]}} trailing",
        "{\"variants\":{\"a\":[{\"op\":\"encode\",\"format\":\"png\"}]}}{\"pool\":\"tpu\"}",
    })
    void textAfterTheSpecObjectMakesItInvalidJson(String spec) {
        assertThat(errors(invalid(spec))).singleElement().asString().startsWith("spec is not valid JSON");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"\"yes\"", "1", "\"true\""})
    void withoutEnlargementMustBeABoolean(String value) {
        String spec = "{\"variants\":{\"v\":[{\"op\":\"resize\",\"width\":5,\"withoutEnlargement\":" + value + "}]}}";

        assertThat(errors(invalid(spec))).singleElement().asString().contains("variants.v[0]").contains("withoutEnlargement must be true or false");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "{}",
        "{\"variants\":{}}",
        "{\"variants\":[]}",
        "{\"variants\":null}",
        "{\"variants\":\"thumb\"}",
    })
    void missingOrEmptyVariantsIsAProblem(String spec) {
        assertThat(errors(invalid(spec))).singleElement().asString().contains("variants must be a non-empty object");
    }

    @ParameterizedTest(name = "[{0}]")
    @NullAndEmptySource
    @ValueSource(strings = {"   "})
    void missingSpecIsAProblem(String spec) {
        assertThat(errors(invalid(spec))).singleElement().asString().startsWith("spec is missing");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"[]", "42", "\"variants\"", "null"})
    void specThatIsNotAnObjectIsAProblem(String spec) {
        assertThat(errors(invalid(spec))).singleElement().asString().isEqualTo("spec must be a JSON object");
    }

    @Test
    void atMostSixteenVariants() {
        String sixteen = IntStream.range(0, 16).mapToObj(i -> "\"v" + i + "\":[{\"op\":\"encode\",\"format\":\"png\"}]").collect(Collectors.joining(","));
        String seventeen = sixteen + ",\"v16\":[{\"op\":\"encode\",\"format\":\"png\"}]";

        assertThat(JobSpec.parse("{\"variants\":{" + sixteen + "}}").variants()).hasSize(16);
        assertThat(errors(invalid("{\"variants\":{" + seventeen + "}}"))).singleElement().asString().contains("at most 16 variants, got 17");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-thumb", "a.b", "ü", "x/../y"})
    void variantNamesAreSafeForStorageKeys(String name) {
        String spec = "{\"variants\":{\"" + name + "\":[{\"op\":\"encode\",\"format\":\"png\"}]}}";

        assertThat(errors(invalid(spec))).singleElement().asString().contains("variant name '" + name + "'");
    }

    @Test
    void problemBodyCarriesTheErrorsAsAnExtension() {
        ApiProblem p = invalid("{\"variants\":{}}");

        var body = p.body("/v1/jobs");

        assertThat(body).containsEntry("type", "https://fairpix.dev/problems/invalid-spec")
                .containsEntry("status", 400)
                .containsEntry("instance", "/v1/jobs")
                .containsKey("errors");
        assertThat(body.get("errors")).isEqualTo(p.extensions().get("errors"));
    }

    private static ApiProblem invalid(String spec) {
        ApiProblem p = Problems.of(catchThrowableOfType(Rejected.class, () -> JobSpec.parse(spec)));
        assertThat(p).as("parse(%s) should fail", spec).isNotNull();
        return p;
    }

    @SuppressWarnings("unchecked")
    private static List<String> errors(ApiProblem p) {
        assertThat(p.extensions()).containsKey("errors");
        return (List<String>) p.extensions().get("errors");
    }

    @Test
    void anOptionalWebhookUrlIsKeptAndANonStringOneIsRefused() {
        JobSpec spec = JobSpec.parse("{\"webhookUrl\":\"https://hooks.example.com/x\",\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":32}]}}");
        assertThat(spec.webhookUrl()).isEqualTo("https://hooks.example.com/x");
        assertThat(JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":32}]}}").webhookUrl()).isNull();
        ApiProblem p = Problems.of(catchThrowableOfType(Rejected.class,
                () -> JobSpec.parse("{\"webhookUrl\":42,\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":32}]}}")));
        assertThat(p.getMessage()).contains("webhookUrl must be a URL string");
    }

    @org.junit.jupiter.api.Test
    void aSideOverTheLimitIsReportedOnceNotAlsoAsMissing() {
        List<String> errors = errors(invalid("{\"variants\":{\"a\":[{\"op\":\"resize\",\"width\":20000,\"height\":20000,\"fit\":\"fill\"}]}}"));
        assertThat(errors).isNotEmpty().noneSatisfy(e -> assertThat(e).contains("needs both width and height"));
    }
}
