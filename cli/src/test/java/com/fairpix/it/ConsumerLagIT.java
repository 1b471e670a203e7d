package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.autoscaler.signal.LagReader;
import com.fairpix.autoscaler.signal.Signals;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.kafka.KafkaSupport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The lag reader against the real broker: a log that retention emptied reads 0 lag, not the whole log (retention moved the log start to the log end; no commits). */
class ConsumerLagIT {

    @Test
    void logStartAdvancedToLogEndWithoutCommitsReadsZeroLag() throws Exception {
        FairpixConfig config = Farm.config();
        String bootstrap = config.get(Setting.KAFKA_BOOTSTRAP);
        String topic = "it-lag-" + UUID.randomUUID().toString().substring(0, 8);
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p); KafkaProducer<String, byte[]> producer = KafkaSupport.producer(bootstrap, "it-lag");
             LagReader reader = Signals.kafkaLag(bootstrap, Duration.ofSeconds(10))) {
            // The broker's replication factor: 1 on the single broker, 3 on the cluster (whose min.insync.replicas 2 refuses a 1-replica topic's acks=all writes).
            admin.createTopics(List.of(new NewTopic(topic, java.util.Optional.of(2), java.util.Optional.empty()))).all().get(30, TimeUnit.SECONDS);
            // A brand-new topic's leader is not known everywhere at once: wait for it before producing.
            // On a cluster the broker asked may not know the topic yet either (UnknownTopicOrPartition).
            for (long until = System.nanoTime() + 30_000_000_000L; ; Thread.sleep(100)) {
                try {
                    var partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions();
                    if (partitions.stream().allMatch(i -> i.leader() != null && !i.leader().isEmpty())) break;
                } catch (java.util.concurrent.ExecutionException e) {
                    if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) throw e;
                }
                assertThat(System.nanoTime()).as("no leader for " + topic).isLessThan(until);
            }
            List<java.util.concurrent.Future<?>> sent = new java.util.ArrayList<>();
            for (int i = 0; i < 1000; i++) sent.add(producer.send(new ProducerRecord<>(topic, 0, "k", new byte[] {1})));
            for (var f : sent) f.get(30, TimeUnit.SECONDS); // every record is in: the log end is 1,000
            TopicPartition p0 = new TopicPartition(topic, 0);
            // what retention does: the log start moves to 1,000 = the log end
            admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(1000))).all().get(30, TimeUnit.SECONDS);

            String group = "it-lag-group-" + UUID.randomUUID();
            assertThat(reader.lagByPartition(topic, group)).containsExactlyInAnyOrderEntriesOf(Map.of(0, 0L, 1, 0L));

            // new messages after the log start count; a commit below the log start counts from the log start
            for (int i = 0; i < 5; i++) producer.send(new ProducerRecord<>(topic, 0, "k", new byte[] {1}));
            producer.flush();
            assertThat(reader.lagByPartition(topic, group)).containsEntry(0, 5L);
            admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(200))).all().get(30, TimeUnit.SECONDS);
            assertThat(reader.lagByPartition(topic, group)).containsEntry(0, 5L);
            admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(1003))).all().get(30, TimeUnit.SECONDS);
            assertThat(reader.lagByPartition(topic, group)).containsEntry(0, 2L);
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        }
    }
}
