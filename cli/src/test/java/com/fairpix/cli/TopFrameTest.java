package com.fairpix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.json.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** One frame of {@code fairpix top}, from the admin API's JSON. */
class TopFrameTest {

    @Test
    void aFrameShowsEachPoolsReplicasSignalsAndTheTopTenants() throws Exception {
        String json = """
                {"actuator":"local","pools":[
                  {"pool":"cpu","mode":"auto","desired":3,"actual":2,
                   "signals":{"ok":true,"qps":12.5,"lag":240,"lagGrowthPerSecond":-4.0,"partitions":12,"partitionsWithLag":3,
                              "topTenants":[{"tenant":"acme","backlog":200},{"tenant":"globex","backlog":40}]},
                   "lastDecision":{"reason":"SCALE_OUT"}},
                  {"pool":"gpu","mode":"paused","actual":1,"signals":{"ok":false,"error":"down"}}]}
                """;
        StringWriter out = new StringWriter();
        TopCommand.frame(new PrintWriter(out, true), Json.mapper().readTree(json));
        String frame = out.toString();
        assertThat(frame).contains("actuator local");
        assertThat(frame).containsPattern("cpu\\s+auto\\s+2\\s+3\\s+12\\.5\\s+240\\s+-4\\.0\\s+12\\(3\\)\\s+SCALE_OUT");
        assertThat(frame).containsPattern("gpu\\s+paused\\s+1\\s+-");
        assertThat(frame).containsPattern("cpu\\s+acme\\s+200");
        assertThat(frame.indexOf("acme")).isLessThan(frame.indexOf("globex"));
        assertThat(frame).contains("TOP TENANTS BY DEMAND: - (the ingest API did not answer");
    }

    /** Issue 31: each pool's tenants asking most, with the guarantee admission gives them now, from the ingest's status. */
    @Test
    void aFrameShowsTheTenantsAskingMostWithTheirGuarantees() throws Exception {
        String pools = """
                {"actuator":"local","pools":[]}
                """;
        String status = """
                {"capacity":{"cpu":{"guaranteeSharing":"max-min","guaranteeScale":0.79,
                  "tenants":[{"tenant":"noisy","rate":200,"demand":400.0,"guarantee":47.4,"overShare":true},{"tenant":"quiet1","rate":10,"demand":3.15,"guarantee":7.9,"overShare":false}]}}}
                """;
        StringWriter out = new StringWriter();
        TopCommand.frame(new PrintWriter(out, true), Json.mapper().readTree(pools), Json.mapper().readTree(status));
        String frame = out.toString();
        assertThat(frame).containsPattern("cpu\\s+noisy\\s+400\\.00\\s+47\\.40\\s+200\\.0\\s+yes\\s+max-min, level 0\\.790");
        assertThat(frame).containsPattern("cpu\\s+quiet1\\s+3\\.15\\s+7\\.90\\s+10\\.0\\s+-\\s+max-min");
        assertThat(frame.indexOf("noisy")).isLessThan(frame.indexOf("quiet1"));
    }

    /** {@code -o json} carries the admission view beside the autoscaler's pools, as the text frame does. */
    @Test
    void theJsonOutputCarriesTheAdmissionViewBesideThePools() throws Exception {
        var pools = Json.mapper().readTree("""
                {"actuator":"local","pools":[{"pool":"cpu","mode":"auto"}]}
                """);
        var status = Json.mapper().readTree("""
                {"capacity":{"cpu":{"guaranteeSharing":"max-min","tenants":[{"tenant":"noisy","demand":400.0,"guarantee":47.4}]}}}
                """);
        var json = TopCommand.json(pools, status);
        assertThat(json.at("/pools/0/pool").asText()).isEqualTo("cpu");
        assertThat(json.at("/admission/cpu/tenants/0/tenant").asText()).isEqualTo("noisy");
        assertThat(json.at("/admission/cpu/guaranteeSharing").asText()).isEqualTo("max-min");
        assertThat(TopCommand.json(pools, null).get("admission").isNull()).as("ingest not answering").isTrue();
        assertThat(pools.has("admission")).as("the autoscaler's object is not changed").isFalse();
    }
}
