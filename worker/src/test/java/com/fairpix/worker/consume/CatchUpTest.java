package com.fairpix.worker.consume;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class CatchUpTest {
    private static final TopicPartition P0 = new TopicPartition("jobs", 0);

    /** offsets from..: tenants as given, timestamp = 1000 + offset */
    private static List<ConsumerRecord<String, byte[]>> records(long from, String... tenants) {
        List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
        for (int i = 0; i < tenants.length; i++) {
            long o = from + i;
            out.add(new ConsumerRecord<>("jobs", 0, o, 1000 + o, org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME,
                    0, 0, tenants[i], new byte[0], new org.apache.kafka.common.header.internals.RecordHeaders(), java.util.Optional.empty()));
        }
        return out;
    }

    @Test
    void takesOnlyTheTenantsRecordsAndStopsAtTheFirstOneWithoutRoom() {
        List<Long> taken = new ArrayList<>();
        CatchUp.Result r = CatchUp.scan(records(10, "n", "q", "n", "n", "q", "n"), "n", 10, 100, rec -> {
            if (taken.size() == 2) return false;
            taken.add(rec.offset());
            return true;
        });
        assertThat(taken).containsExactly(10L, 12L);
        assertThat(r).isEqualTo(new CatchUp.Result(13, 1013, 2, false));
    }

    @Test
    void reachingTheMainCursorsPositionEndsTheHoldAndLeavesLaterRecordsToTheMainCursor() {
        List<Long> taken = new ArrayList<>();
        CatchUp.Result r = CatchUp.scan(records(10, "n", "q", "n", "n"), "n", 10, 12, rec -> taken.add(rec.offset()));
        assertThat(taken).containsExactly(10L);
        assertThat(r.caughtUp()).isTrue();
        assertThat(r.next()).isEqualTo(12);
    }

    @Test
    void aBatchOfOtherTenantsRecordsMovesTheHoldPastThem() {
        CatchUp.Result r = CatchUp.scan(records(10, "q", "q", "q"), "n", 10, 100, rec -> true);
        assertThat(r).isEqualTo(new CatchUp.Result(13, -1, 0, false));
        CatchUp.Result last = CatchUp.scan(records(10, "q", "q", "q"), "n", 10, 13, rec -> true);
        assertThat(last.caughtUp()).as("the batch ends right at the read position").isTrue();
    }

    @Test
    void recordsBeforeTheHoldAreIgnoredAndAnEmptyFetchMakesNoProgress() {
        List<Long> taken = new ArrayList<>();
        CatchUp.Result r = CatchUp.scan(records(8, "n", "n", "n"), "n", 10, 100, rec -> taken.add(rec.offset()));
        assertThat(taken).containsExactly(10L);
        assertThat(r.next()).isEqualTo(11);
        assertThat(CatchUp.scan(List.of(), "n", 10, 100, rec -> true)).isEqualTo(new CatchUp.Result(10, -1, 0, false));
    }

    @Test
    void runFetchesFromTheHoldAndNeverWhenThereIsNothingBehind() {
        List<Long> fetchedFrom = new ArrayList<>();
        CatchUp c = new CatchUp((tp, from) -> {
            fetchedFrom.add(from);
            return records(from, "n", "n");
        });
        assertThat(c.run(P0, "n", 20, 20, rec -> true).caughtUp()).isTrue();
        assertThat(fetchedFrom).isEmpty();
        CatchUp.Result r = c.run(P0, "n", 20, 30, rec -> true);
        assertThat(fetchedFrom).containsExactly(20L);
        assertThat(r.taken()).isEqualTo(2);
        assertThat(r.next()).isEqualTo(22);
    }
}
