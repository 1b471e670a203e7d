package com.fairpix.core.kafka;

import com.fairpix.core.pool.Pool;
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

    /**
     * A producer with {@code acks=all} and idempotence (no duplicates from producer retries), failing
     * within about 10 s when the broker is away rather than blocking a request forever.
     */
    public static KafkaProducer<String, byte[]> producer(String bootstrap, String clientId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
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

    /**
     * Creates fairpix's topics when missing: the two job topics with {@code jobPartitions}
     * partitions ({@link #JOB_TOPIC_CONFIG}, also applied to job topics that exist), the events
     * topic and the dead-letter queue.
     *
     * @throws IllegalStateException when the broker cannot be reached within 30 s
     */
    public static void ensureTopics(String bootstrap, int jobPartitions) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        try (Admin admin = Admin.create(p)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> wanted = new ArrayList<>();
            Set<String> jobTopics = Pool.NAMES.stream().map(Topics::jobs).collect(Collectors.toSet());
            Map<String, Integer> partitions = new HashMap<>(Map.of(Topics.EVENTS, jobPartitions, Topics.DLQ, 1));
            jobTopics.forEach(t -> partitions.put(t, jobPartitions));
            for (var t : partitions.entrySet()) {
                NewTopic topic = new NewTopic(t.getKey(), t.getValue(), (short) 1);
                if (jobTopics.contains(t.getKey())) topic.configs(JOB_TOPIC_CONFIG);
                if (!existing.contains(t.getKey())) wanted.add(topic);
            }
            // Topics made by an older build: bring their settings up to date (idempotent).
            Map<ConfigResource, Collection<AlterConfigOp>> alter = new HashMap<>();
            for (String t : jobTopics) {
                if (!existing.contains(t)) continue;
                alter.put(new ConfigResource(ConfigResource.Type.TOPIC, t), JOB_TOPIC_CONFIG.entrySet().stream()
                        .map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET)).toList());
            }
            if (!alter.isEmpty()) {
                try {
                    admin.incrementalAlterConfigs(alter).all().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    // Not worth refusing to start over (no AlterConfigs right, a policy): queuedAt then is
                    // the producer's send time, a little earlier than the append.
                    log.warn("cannot set {} on the job topics: {}", JOB_TOPIC_CONFIG, e.toString());
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
