import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * {@code scripts/kafka-cluster status}'s second half, compiled once by the script and run on the
 * broker jars: the quorum's leader, and for each of fairpix's topics (and the offsets topic) which
 * node leads which partitions, with the partitions whose ISR is short of their replicas.
 * Usage: {@code java -cp "lib/kafka/*:DIR" ClusterStatus BOOTSTRAP}. Exits 1 when the cluster does
 * not answer within 10 s.
 */
public class ClusterStatus {
    public static void main(String[] args) throws Exception {
        Map<String, Object> conf = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0],
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        try (Admin admin = Admin.create(conf)) {
            var quorum = admin.describeMetadataQuorum().quorumInfo().get(10, TimeUnit.SECONDS);
            System.out.printf("quorum leader: node %d; voters %s%n", quorum.leaderId(),
                    quorum.voters().stream().map(v -> v.replicaId() + (v.lastCaughtUpTimestamp().isPresent() ? "" : "?")).toList());
            List<String> topics = admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
                    .names().get(10, TimeUnit.SECONDS).stream()
                    .filter(t -> t.startsWith("fairpix.") || t.equals("__consumer_offsets")).sorted().toList();
            if (topics.isEmpty()) {
                System.out.println("no fairpix topics yet");
                return;
            }
            Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS);
            for (String t : topics) {
                Map<String, TreeSet<Integer>> byLeader = new TreeMap<>();
                TreeSet<String> shortIsr = new TreeSet<>();
                int rf = 0;
                for (TopicPartitionInfo p : described.get(t).partitions()) {
                    rf = Math.max(rf, p.replicas().size());
                    byLeader.computeIfAbsent(p.leader() == null ? "none" : "node " + p.leader().id(), k -> new TreeSet<>()).add(p.partition());
                    if (p.isr().size() < p.replicas().size()) shortIsr.add(p.partition() + " isr " + p.isr().stream().map(n -> n.id()).toList());
                }
                StringBuilder line = new StringBuilder(String.format("%-20s rf %d  leaders:", t, rf));
                byLeader.forEach((leader, ps) -> line.append(' ').append(leader).append(' ').append(ps));
                line.append(shortIsr.isEmpty() ? "  all in sync" : "  short ISR: " + shortIsr);
                System.out.println(line);
            }
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            System.err.println("cluster at " + args[0] + " did not answer: " + e);
            System.exit(1);
        }
    }
}
