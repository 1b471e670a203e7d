package com.fairpix.core.kafka;

import com.fairpix.core.pool.Pool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Client settings fairpix uses everywhere, and topic creation. */
public final class KafkaSupport {
    private static final Logger log = LoggerFactory.getLogger(KafkaSupport.class);
    private KafkaSupport() {}

    /** How long a producer made by {@link #producer(String, String)} keeps trying one record. */
    public static final Duration DEFAULT_DELIVERY_TIMEOUT = Duration.ofSeconds(10);
    /** Longest single produce request (the rest of a delivery timeout goes to retries). */
    static final Duration MAX_REQUEST_TIMEOUT = Duration.ofSeconds(5);
    static final int LINGER_MS = 2;

    /**
     * A producer as {@link #producer(String, String, Duration)} that keeps trying a record for
     * {@link #DEFAULT_DELIVERY_TIMEOUT} (10 s): long enough to ride out a leader change (about 4 s
     * when a broker is killed; docs/kafka.md), short enough that a caller waiting 15 s hears of a
     * failure.
     */
    public static KafkaProducer<String, byte[]> producer(String bootstrap, String clientId) {
        return producer(bootstrap, clientId, DEFAULT_DELIVERY_TIMEOUT);
    }

    /**
     * A producer that makes a leader change lossless and duplicate-free (docs/kafka.md):
     * {@code acks=all} (a record is acknowledged once every in-sync replica has it, at least
     * {@code min.insync.replicas} of them) and idempotence (the broker drops the copies its
     * retries would write, across a leader change too, with the order kept). It fails a record
     * rather than block: {@code send} waits at most min(5 s, deliveryTimeout) for metadata, and a
     * record not acknowledged within {@code deliveryTimeout} (retries included) fails with a
     * {@link org.apache.kafka.common.errors.TimeoutException}.
     *
     * @param deliveryTimeout how long the producer keeps trying one record, retries through a leader
     *                        change included ({@code delivery.timeout.ms}); a caller that stops
     *                        waiting earlier leaves a record that may still be written later;
     *                        at least 3 ms (a 2 ms linger and a request must fit in it)
     */
    public static KafkaProducer<String, byte[]> producer(String bootstrap, String clientId, Duration deliveryTimeout) {
        return new KafkaProducer<>(producerProperties(bootstrap, clientId, deliveryTimeout), new StringSerializer(), new ByteArraySerializer());
    }

    /** The settings of {@link #producer(String, String, Duration)}. */
    static Properties producerProperties(String bootstrap, String clientId, Duration deliveryTimeout) {
        long delivery = Math.max(LINGER_MS + 1, deliveryTimeout.toMillis());
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        // Idempotence keeps order and drops duplicates with up to 5 requests in flight per partition.
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        p.put(ProducerConfig.LINGER_MS_CONFIG, LINGER_MS);
        // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms.
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(MAX_REQUEST_TIMEOUT.toMillis(), delivery - LINGER_MS));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, delivery));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.min(MAX_REQUEST_TIMEOUT.toMillis(), delivery));
        return p;
    }

    /** Consumer settings for a worker pool: the KIP-848 consumer group protocol, manual commits. */
    public static Properties consumerProperties(String bootstrap, String groupId, String clientId, int maxPollRecords) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    /**
     * The job topics' settings: the broker stamps each record with its append time, so a job's
     * {@code queuedAt} (and its queue wait) starts when it entered the queue, not when a busy
     * ingest node called send().
     */
    static final Map<String, String> JOB_TOPIC_CONFIG = Map.of("message.timestamp.type", "LogAppendTime");

    /** The most replicas fairpix gives a topic: one leader and two followers. */
    public static final int MAX_REPLICATION_FACTOR = 3;

    /**
     * The replication factor of the topics fairpix creates on a cluster of {@code brokers}:
     * min(3, brokers), so a single development broker works and a production cluster keeps three copies.
     *
     * @throws IllegalArgumentException when {@code brokers} is under 1
     */
    public static short replicationFactor(int brokers) {
        if (brokers < 1) throw new IllegalArgumentException("a cluster of " + brokers + " brokers");
        return (short) Math.min(MAX_REPLICATION_FACTOR, brokers);
    }

    /**
     * The replication settings of a topic with {@code replicationFactor} replicas:
     * {@code min.insync.replicas} 2 from 3 replicas up (an {@code acks=all} write is then on two
     * brokers before it is acknowledged, and one broker may be lost with the topic still writable),
     * else 1; and no unclean leader election (a replica that fell out of sync never leads, which
     * would drop acknowledged records).
     */
    public static Map<String, String> replicationConfig(int replicationFactor) {
        return Map.of("min.insync.replicas", replicationFactor >= MAX_REPLICATION_FACTOR ? "2" : "1",
                "unclean.leader.election.enable", "false");
    }

    /**
     * Creates fairpix's topics when missing: the two job topics with {@code jobPartitions}
     * partitions ({@link #JOB_TOPIC_CONFIG}), the events topic and the dead-letter queue, each with
     * {@link #replicationFactor} replicas for the cluster's size and {@link #replicationConfig}.
     * Topics that exist keep their partitions and replicas; their settings are brought up to date
     * ({@link #JOB_TOPIC_CONFIG}, and {@link #replicationConfig} for the replicas they have).
     *
     * @throws IllegalStateException when the cluster cannot be reached within 30 s
     */
    public static void ensureTopics(String bootstrap, int jobPartitions) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        try (Admin admin = Admin.create(p)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            short replicas = replicationFactor(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
            List<NewTopic> wanted = new ArrayList<>();
            Set<String> jobTopics = Pool.NAMES.stream().map(Topics::jobs).collect(Collectors.toSet());
            Map<String, Integer> partitions = new HashMap<>(Map.of(Topics.EVENTS, jobPartitions, Topics.DLQ, 1));
            jobTopics.forEach(t -> partitions.put(t, jobPartitions));
            for (var t : partitions.entrySet()) {
                Map<String, String> configs = new HashMap<>(replicationConfig(replicas));
                if (jobTopics.contains(t.getKey())) configs.putAll(JOB_TOPIC_CONFIG);
                if (!existing.contains(t.getKey())) wanted.add(new NewTopic(t.getKey(), t.getValue(), replicas).configs(configs));
            }
            // Topics made by an older build or another cluster size: bring their settings up to date
            // (idempotent), min.insync.replicas by the replicas each has (2 on a 1-replica topic would refuse every write).
            Set<String> present = partitions.keySet().stream().filter(existing::contains).collect(Collectors.toSet());
            Map<ConfigResource, Collection<AlterConfigOp>> alter = new HashMap<>();
            if (!present.isEmpty()) {
                for (TopicDescription d : admin.describeTopics(present).allTopicNames().get(30, TimeUnit.SECONDS).values()) {
                    Map<String, String> configs = new HashMap<>(replicationConfig(d.partitions().stream().mapToInt(i -> i.replicas().size()).min().orElse(1)));
                    if (jobTopics.contains(d.name())) configs.putAll(JOB_TOPIC_CONFIG);
                    alter.put(new ConfigResource(ConfigResource.Type.TOPIC, d.name()), configs.entrySet().stream()
                            .map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET)).toList());
                }
            }
            if (!alter.isEmpty()) {
                try {
                    admin.incrementalAlterConfigs(alter).all().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    // Not worth refusing to start over (no AlterConfigs right, a policy): queuedAt then is
                    // the producer's send time, a little earlier than the append, and replication as the topic has it.
                    log.warn("cannot update the settings of {}: {}", present, e.toString());
                }
            }
            if (wanted.isEmpty()) return;
            try {
                admin.createTopics(wanted).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) throw e; // another node won the race
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create Kafka topics at " + bootstrap + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        }
    }
}
