package com.fairpix.worker.consume;

import com.fairpix.worker.schedule.JobScheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rebalance listener: a partition taken from this worker is handed over with what is finished
 * committed (when revoked, not lost), its buffered jobs dropped (the new owner reads them again) and
 * its offsets, holds and read position forgotten; a catch-up planned before that is void (the
 * partition's generation moved on, {@link ReadAhead#forget}). Runs on the poll thread, inside poll().
 */
final class Handover implements ConsumerRebalanceListener {
    private static final Logger log = LoggerFactory.getLogger(Handover.class);
    /** How long a revoke waits for its commit: the partition's next owner starts from what it commits. */
    private static final Duration REVOKE_COMMIT_TIMEOUT = Duration.ofSeconds(30);

    private final Ownership ownership;
    private final JobScheduler<Delivery> scheduler;
    private final Intake intake;
    private final Completions completions;
    private final Commits commits;
    private final OffsetTracker offsets;
    private final ReadAhead readAhead;
    private final Clock clock;

    /** @param clock the wall clock: when partitions were revoked ({@link Ownership#lastRevoked}) */
    Handover(Ownership ownership, JobScheduler<Delivery> scheduler, Intake intake, Completions completions, Commits commits,
             OffsetTracker offsets, ReadAhead readAhead, Clock clock) {
        this.ownership = ownership;
        this.scheduler = scheduler;
        this.intake = intake;
        this.completions = completions;
        this.commits = commits;
        this.offsets = offsets;
        this.readAhead = readAhead;
        this.clock = clock;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        handOver(partitions, true);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        handOver(partitions, false);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        commits.reset(partitions);
        ownership.assigned(partitions);
        log.info("assigned {}", partitions);
    }

    private void handOver(Collection<TopicPartition> partitions, boolean commit) {
        Set<TopicPartition> gone = new HashSet<>(partitions);
        ownership.revoked(gone, clock.millis());
        List<Delivery> dropped = scheduler.drainIf(d -> gone.contains(d.partition()));
        dropped.forEach(intake::unbuffered);
        completions.apply();
        if (commit) {
            // Everything finished goes out, the partitions kept too: draining the tracker lets go of their offsets.
            Set<TopicPartition> ours = new HashSet<>(ownership.owned());
            ours.addAll(gone);
            commits.commitSync(ours, REVOKE_COMMIT_TIMEOUT);
        }
        offsets.forget(gone);
        readAhead.forget(gone);
        ownership.forgetPositions(gone);
        commits.reset(gone);
        log.info("partitions {} revoked (commit={}); {} buffered jobs handed back", partitions, commit, dropped.size());
    }
}
