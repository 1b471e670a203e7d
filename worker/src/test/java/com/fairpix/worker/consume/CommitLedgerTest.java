package com.fairpix.worker.consume;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class CommitLedgerTest {
    static final TopicPartition P0 = new TopicPartition("jobs", 0);
    static final TopicPartition P1 = new TopicPartition("jobs", 1);
    static final Set<TopicPartition> OWNED = Set.of(P0, P1);

    static Map<TopicPartition, OffsetAndMetadata> at(TopicPartition tp, long offset) {
        return Map.of(tp, new OffsetAndMetadata(offset));
    }

    @Test
    void aFailedCommitGoesOutWithTheNextOneEvenWithoutNewProgress() {
        CommitLedger ledger = new CommitLedger();
        CommitLedger.Sent first = ledger.next(at(P0, 10), OWNED);
        ledger.failed(first);

        assertThat(ledger.next(Map.of(), OWNED).offsets()).isEqualTo(at(P0, 10));
        assertThat(ledger.next(Map.of(), OWNED).offsets()).as("sent once, not forever").isEmpty();
    }

    @Test
    void aFailureIsNotRetriedOverALaterCommit() {
        CommitLedger ledger = new CommitLedger();
        CommitLedger.Sent a = ledger.next(at(P0, 10), OWNED);
        CommitLedger.Sent b = ledger.next(at(P0, 20), OWNED);
        // Callbacks come in send order: a fails, then b succeeds.
        ledger.failed(a);

        assertThat(ledger.next(Map.of(), OWNED).offsets()).as("10 would move the committed 20 backwards").isEmpty();
        assertThat(b.offsets()).isEqualTo(at(P0, 20));
    }

    @Test
    void whenBothFailTheLaterOffsetIsRetried() {
        CommitLedger ledger = new CommitLedger();
        CommitLedger.Sent a = ledger.next(at(P0, 10), OWNED);
        CommitLedger.Sent b = ledger.next(at(P0, 20), OWNED);
        ledger.failed(a);
        ledger.failed(b);

        assertThat(ledger.next(Map.of(), OWNED).offsets()).isEqualTo(at(P0, 20));
    }

    @Test
    void aRetryMergesWithNewProgressAndTheFurtherOffsetWins() {
        CommitLedger ledger = new CommitLedger();
        ledger.failed(ledger.next(Map.of(P0, new OffsetAndMetadata(10), P1, new OffsetAndMetadata(5)), OWNED));

        assertThat(ledger.next(at(P0, 12), OWNED).offsets()).isEqualTo(Map.of(P0, new OffsetAndMetadata(12), P1, new OffsetAndMetadata(5)));
    }

    @Test
    void aFailureFromAnEarlierAssignmentIsDropped() {
        CommitLedger ledger = new CommitLedger();
        CommitLedger.Sent old = ledger.next(at(P0, 10), OWNED);
        // P0 is revoked and assigned back before the failure is reported (inside commitSync or close).
        ledger.reset(Set.of(P0));
        ledger.reset(Set.of(P0));
        ledger.failed(old);

        assertThat(ledger.next(Map.of(), OWNED).offsets()).isEmpty();
    }

    @Test
    void retriesOnlyForPartitionsStillOwned() {
        CommitLedger ledger = new CommitLedger();
        ledger.failed(ledger.next(Map.of(P0, new OffsetAndMetadata(10), P1, new OffsetAndMetadata(7)), OWNED));

        assertThat(ledger.next(Map.of(), Set.of(P1)).offsets()).isEqualTo(at(P1, 7));
        assertThat(ledger.next(Map.of(), OWNED).offsets()).as("P0's retry was dropped with its ownership").isEmpty();
    }
}
