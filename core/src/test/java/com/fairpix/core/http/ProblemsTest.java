package com.fairpix.core.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.error.Rejected;
import com.fairpix.core.error.RetryLater;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Core's error family as problem documents: each kind's status, type, members and headers. */
class ProblemsTest {
    @Test
    void eachKindOfRefusalHasItsStatus() {
        Map<Rejected.Kind, Integer> statuses = Map.of(Rejected.Kind.INVALID, 400, Rejected.Kind.UNAUTHENTICATED, 401, Rejected.Kind.FORBIDDEN, 403,
                Rejected.Kind.NOT_FOUND, 404, Rejected.Kind.CONFLICT, 409, Rejected.Kind.TOO_LARGE, 413, Rejected.Kind.UNSUPPORTED, 415,
                Rejected.Kind.UNPROCESSABLE, 422, Rejected.Kind.LIMITED, 429);
        assertThat(statuses).hasSize(Rejected.Kind.values().length);
        statuses.forEach((kind, status) -> assertThat(Problems.of(new Rejected(kind, "p", "T", "d")).status()).as("%s", kind).isEqualTo(status));
    }

    @Test
    void aRefusalKeepsItsTypeTitleDetailAndMembersInOrder() {
        ApiProblem p = Problems.of(Rejected.invalid("invalid-spec", "The job spec is invalid: a; b").with("errors", List.of("a", "b")).with("limit", 3));
        assertThat(p.body("/v1/jobs")).containsExactly(
                Map.entry("type", ApiProblem.TYPE_BASE + "invalid-spec"), Map.entry("title", "Bad request"), Map.entry("status", 400),
                Map.entry("detail", "The job spec is invalid: a; b"), Map.entry("instance", "/v1/jobs"),
                Map.entry("errors", List.of("a", "b")), Map.entry("limit", 3));
        assertThat(p.headers()).isEmpty();
    }

    @Test
    void aLimitsRefusalSaysWhenToRetryAndCarriesItsFields() {
        ApiProblem p = Problems.of(new Rejected(Rejected.Kind.LIMITED, "rate-limited", "Too many requests", "over").retryAfter(7)
                .field("RateLimit-Policy", "\"tokens\";q=10;w=5").field("RateLimit", "\"tokens\";r=0;t=7"));
        assertThat(p.headers()).containsExactly(Map.entry("Retry-After", "7"),
                Map.entry("RateLimit-Policy", "\"tokens\";q=10;w=5"), Map.entry("RateLimit", "\"tokens\";r=0;t=7"));
    }

    @Test
    void aMissingKeyIsChallengedAndAnUnwantedBodyClosesTheConnection() {
        assertThat(Problems.of(Rejected.unauthenticated("no key")).headers()).containsExactly(Map.entry("WWW-Authenticate", "Bearer realm=\"fairpix\""));
        assertThat(Problems.of(Rejected.uploadTooLarge("big").stopReading()).headers()).containsExactly(Map.entry("Connection", "close"));
    }

    @Test
    void retryLaterIsA503NamingTheDependencyOrTheOverload() {
        ApiProblem down = Problems.of(RetryLater.dependency("redis", "away", 5).with("breaker", "open"));
        assertThat(down.status()).isEqualTo(503);
        assertThat(down.slug()).isEqualTo("backend-unavailable");
        assertThat(down.extensions()).containsExactly(Map.entry("dependency", "redis"), Map.entry("breaker", "open"));
        assertThat(down.headers()).containsExactly(Map.entry("Retry-After", "5"));
        ApiProblem shed = Problems.of(RetryLater.overloaded("ramp", "recovering", 2));
        assertThat(shed.status()).isEqualTo(503);
        assertThat(shed.slug()).isEqualTo("overloaded");
        assertThat(shed.extensions()).containsExactly(Map.entry("reason", "ramp"));
        assertThat(shed.headers()).containsExactly(Map.entry("Retry-After", "2"));
    }

    @Test
    void aPermanentFailureIsNoAnswerToARequest() {
        assertThatThrownBy(() -> Problems.of(new Permanent("undecodable", "bad"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aServiceAnswersARefusalItsHandlerThrowsAsProblemJson() throws Exception {
        Javalin app = ServiceHttp.create(ServiceHttp.newRegistry(), Map.of(), MetricsAccess.OPEN, c -> {})
                .get("/limited", ctx -> { throw new Rejected(Rejected.Kind.LIMITED, "rate-limited", "Too many requests", "slow down").retryAfter(3); })
                .get("/down", ctx -> { throw RetryLater.dependency("s3", "away", 5); })
                .start("127.0.0.1", 0);
        try {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> limited = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/limited")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(limited.statusCode()).isEqualTo(429);
            assertThat(limited.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith(ServiceHttp.PROBLEM_JSON));
            assertThat(limited.headers().firstValue("Retry-After")).hasValue("3");
            assertThat(limited.body()).contains("\"type\":\"" + ApiProblem.TYPE_BASE + "rate-limited\"").contains("\"detail\":\"slow down\"");
            HttpResponse<String> down = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/down")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(down.body()).contains("backend-unavailable").contains("\"dependency\":\"s3\"");
        } finally {
            app.stop();
        }
    }
}
