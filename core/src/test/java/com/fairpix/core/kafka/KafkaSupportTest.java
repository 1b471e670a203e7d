package com.fairpix.core.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

class KafkaSupportTest {
    @Test
    void topicsGetThreeReplicasWhereTheClusterHasThemAndNeverMoreThanItHas() {
        assertThat(KafkaSupport.replicationFactor(1)).isEqualTo((short) 1);
        assertThat(KafkaSupport.replicationFactor(2)).isEqualTo((short) 2);
        assertThat(KafkaSupport.replicationFactor(3)).isEqualTo((short) 3);
        assertThat(KafkaSupport.replicationFactor(7)).isEqualTo((short) 3);
        assertThatThrownBy(() -> KafkaSupport.replicationFactor(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void twoInSyncReplicasAreRequiredFromThreeReplicasUpAndUncleanElectionIsOff() {
        assertThat(KafkaSupport.replicationConfig(3)).containsEntry("min.insync.replicas", "2").containsEntry("unclean.leader.election.enable", "false");
        // A 1- or 2-replica topic must stay writable with one replica (min.insync.replicas 2 of 1 refuses every write).
        assertThat(KafkaSupport.replicationConfig(1)).containsEntry("min.insync.replicas", "1");
        assertThat(KafkaSupport.replicationConfig(2)).containsEntry("min.insync.replicas", "1");
    }

    @Test
    void theProducerIsIdempotentWaitsForAllInSyncReplicasAndGivesUpWithinItsDeliveryTimeout() {
        Properties p = KafkaSupport.producerProperties("127.0.0.1:1", "t", Duration.ofMillis(2000));
        assertThat(p).containsEntry(ProducerConfig.ACKS_CONFIG, "all").containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                .containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 2000);
        // Kafka refuses delivery.timeout.ms < linger.ms + request.timeout.ms; send() blocks no longer than the delivery timeout.
        assertThat((int) p.get(ProducerConfig.LINGER_MS_CONFIG) + (int) p.get(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)).isLessThanOrEqualTo(2000);
        assertThat((long) p.get(ProducerConfig.MAX_BLOCK_MS_CONFIG)).isLessThanOrEqualTo(2000);

        Properties tiny = KafkaSupport.producerProperties("127.0.0.1:1", "t", Duration.ofMillis(1));
        assertThat((int) tiny.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)).isGreaterThanOrEqualTo(
                (int) tiny.get(ProducerConfig.LINGER_MS_CONFIG) + (int) tiny.get(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG));
        // The real client accepts the combination (it throws a ConfigException otherwise).
        KafkaSupport.producer("127.0.0.1:1", "t", Duration.ofMillis(1)).close(Duration.ZERO);
        KafkaSupport.producer("127.0.0.1:1", "t").close(Duration.ZERO);
    }
}
