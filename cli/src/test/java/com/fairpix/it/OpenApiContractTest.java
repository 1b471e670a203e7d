package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The checker the integration tests hold the services to can fail: each kind of mismatch is caught. */
class OpenApiContractTest {
    private final OpenApiContract ingest = OpenApiContract.of("ingest");

    @Test
    void bothDocumentsAreValidOpenApi31() {
        assertThat(ingest.api().getOpenapi()).startsWith("3.1");
        assertThat(OpenApiContract.of("autoscaler").api().getPaths()).containsKey("/admin/v1/pools/{pool}/policy");
    }

    @Test
    void aConformingAnswerPasses() {
        String problem = "{\"type\":\"https://fairpix.dev/problems/not-found\",\"title\":\"Not found\",\"status\":404,\"detail\":\"No job job_x.\"}";
        assertThat(ingest.problems("GET", "/v1/jobs/job_x", 404, "application/problem+json", problem)).isEmpty();
    }

    @Test
    void anUndocumentedRouteStatusMediaTypeOrBodyIsCaught() {
        assertThat(ingest.problems("GET", "/v1/nothing-here", 200, "application/json", "{}")).singleElement().asString().contains("no operation");
        assertThat(ingest.problems("PUT", "/v1/jobs/job_x", 200, "application/json", "{}")).singleElement().asString().contains("no operation");
        assertThat(ingest.problems("GET", "/v1/jobs/job_x", 418, "application/json", "{}")).singleElement().asString().contains("status not documented");
        assertThat(ingest.problems("GET", "/v1/jobs/job_x", 404, "text/html", "<h1>404</h1>")).singleElement().asString().contains("Content-Type 'text/html'");
        // A job without its required members, and a state that is not one of the enum's.
        assertThat(ingest.problems("GET", "/v1/jobs/job_x", 200, "application/json", "{\"id\":\"job_x\",\"state\":\"SLEEPING\"}"))
                .isNotEmpty().anyMatch(p -> p.contains("required") || p.contains("original")).anyMatch(p -> p.contains("state"));
    }

    @Test
    void anAcceptedRequestMustMatchItsDocumentedBody() {
        assertThat(ingest.requestProblems("PATCH", "/admin/v1/tenants/t1", "application/json", "{\"weight\":2}")).isEmpty();
        assertThat(ingest.requestProblems("PATCH", "/admin/v1/tenants/t1", "application/json", "{\"weight\":\"heavy\"}")).isNotEmpty();
        assertThat(ingest.requestProblems("POST", "/admin/v1/tenants/t1/suspend", "application/json", "{\"x\":1}"))
                .singleElement().asString().contains("documents none");
    }
}
