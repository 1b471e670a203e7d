package com.fairpix.ingest.enqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fairpix.core.error.Rejected;
import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.http.Problems;
import com.fairpix.core.job.JobSpec;
import org.junit.jupiter.api.Test;

class IdempotencyTest {
    static final JobSpec A = JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":64},{\"op\":\"encode\",\"format\":\"jpeg\"}]}}");

    @Test
    void theFingerprintIgnoresSpellingButNotMeaningOrBytes() {
        JobSpec sameSpelledOtherwise = JobSpec.parse("{ \"variants\" : { \"t\" : [ {\"width\":64, \"op\":\"resize\"} ] } }");
        JobSpec png = JobSpec.parse("{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":64},{\"op\":\"encode\",\"format\":\"png\"}]}}");
        String fp = Idempotency.fingerprint(A, "aa");
        assertThat(Idempotency.fingerprint(sameSpelledOtherwise, "aa")).isEqualTo(fp);
        assertThat(Idempotency.fingerprint(png, "aa")).isNotEqualTo(fp);
        assertThat(Idempotency.fingerprint(A, "bb")).isNotEqualTo(fp);
    }

    @Test
    void claimsRoundTripAndOldClaimsMatchAnyRequest() {
        Idempotency.Claim c = Idempotency.Claim.parse(Idempotency.value("job1", "fp1"));
        assertThat(c).isEqualTo(new Idempotency.Claim("job1", "fp1"));
        assertThat(c.matches("fp1")).isTrue();
        assertThat(c.matches("fp2")).isFalse();
        assertThat(Idempotency.Claim.parse("job0").matches("anything")).isTrue();
        assertThat(Idempotency.Claim.parse(null)).isNull();
    }

    @Test
    void keysAreSfStringsOrTokens() {
        assertThat(Idempotency.key("\"8e03978e-40d5-43e8-bc93-6894a57f9324\"")).isEqualTo("8e03978e-40d5-43e8-bc93-6894a57f9324");
        assertThat(Idempotency.key("abc")).isEqualTo("abc");
        for (String bad : new String[] {"", "\"\"", "a b", "x".repeat(256), "caf\u00e9", "a\r\nb"}) {
            ApiProblem p = Problems.of(catchThrowableOfType(Rejected.class, () -> Idempotency.key(bad)));
            assertThat(p).as(bad).isNotNull();
            assertThat(p.slug()).isEqualTo("invalid-idempotency-key");
        }
    }

    @Test
    void mismatchIs422AndInFlightIs409() {
        assertThat(Problems.of(Idempotency.mismatch()).status()).isEqualTo(422);
        assertThat(Problems.of(Idempotency.mismatch()).slug()).isEqualTo("idempotency-key-reused");
        assertThat(Problems.of(Idempotency.inFlight()).status()).isEqualTo(409);
    }
}
