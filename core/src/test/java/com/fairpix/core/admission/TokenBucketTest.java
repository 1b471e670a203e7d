package com.fairpix.core.admission;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The one token bucket's arithmetic: nanotokens, millitokens/s, µs (its Lua twin: TokenBucketLuaTwinIT in ingest-api). */
class TokenBucketTest {
    static final long RATE = TokenBucket.milli(10);
    static final long BURST = TokenBucket.nano(20);

    @Test
    void aFullBucketAdmitsItsBurstThenRefillsContinuouslyAtItsRate() {
        TokenBucket b = TokenBucket.holding(BURST, 0);
        int admitted = 0;
        for (int i = 0; i < 25; i++) if (b.tryTake(TokenBucket.nano(1), 0, RATE, BURST)) admitted++;
        assertThat(admitted).isEqualTo(20);
        assertThat(b.tokens(0, RATE, BURST)).isZero();
        assertThat(b.tokens(150_000, RATE, BURST)).as("0.15 s at 10/s").isEqualTo(TokenBucket.nano(1.5));
        assertThat(b.tryTake(TokenBucket.nano(2), 150_000, RATE, BURST)).as("a refusal takes nothing").isFalse();
        assertThat(b.tokens(150_000, RATE, BURST)).isEqualTo(TokenBucket.nano(1.5));
        assertThat(b.tokens(10_000_000, RATE, BURST)).as("never above the burst").isEqualTo(BURST);
    }

    @Test
    void aChargeLeavesADebtDownToItsFloorRepaidAtTheRate() {
        TokenBucket b = TokenBucket.holding(TokenBucket.nano(1), 0);
        assertThat(b.charge(TokenBucket.nano(50), -BURST, 0, RATE, BURST)).as("floored").isEqualTo(-BURST);
        assertThat(b.tokens(1_000_000, RATE, BURST)).isEqualTo(TokenBucket.nano(-10));
        assertThat(TokenBucket.wait(TokenBucket.nano(-10), TokenBucket.nano(1), RATE)).as("µs to hold 1 again").isEqualTo(1_100_000);
        assertThat(b.charge(TokenBucket.nano(5), Long.MIN_VALUE, 1_000_000, RATE, BURST)).isEqualTo(TokenBucket.nano(-15));
    }

    @Test
    void aCallBeforeTheLastRefillsNothingAndTheClockGoesOnFromTheLatest() {
        TokenBucket b = TokenBucket.holding(0, 1_000_000);
        assertThat(b.tokens(500_000, RATE, BURST)).isZero();
        assertThat(b.tokens(1_100_000, RATE, BURST)).as("0.1 s after the latest call, not after the earlier one").isEqualTo(TokenBucket.nano(1));
    }

    @Test
    void aRefillAfterAnyIdleTimeIsExactAndCannotOverflow() {
        long rate = TokenBucket.milli(1_000_000), burst = TokenBucket.nano(1_000_000);
        assertThat(TokenBucket.refill(-burst, 0, 12L * 3600 * 1_000_000, rate, burst)).isEqualTo(burst);
        assertThat(TokenBucket.refill(0, 0, Long.MAX_VALUE, TokenBucket.milli(0.001), burst)).isEqualTo(burst);
        assertThat(TokenBucket.refill(burst + 5, 0, 1, rate, burst)).as("a burst lowered by a reload").isEqualTo(burst);
    }

    @Test
    void waitsAreRoundedUpNeverInTheClientsFavour() {
        assertThat(TokenBucket.wait(0, 1, TokenBucket.milli(3))).isEqualTo(1);
        assertThat(TokenBucket.wait(0, TokenBucket.nano(1), TokenBucket.milli(3))).isEqualTo(333_334);
        assertThat(TokenBucket.wait(TokenBucket.nano(2), TokenBucket.nano(1), RATE)).isZero();
        assertThat(TokenBucket.untilFull(0, RATE, BURST)).isEqualTo(2_000_000);
        assertThat(TokenBucket.ceilDiv(-7, 2)).isEqualTo(-3);
    }

    @Test
    void unitsConvert() {
        assertThat(TokenBucket.milli(0)).as("rates resolve to 0.001/s").isEqualTo(1);
        assertThat(TokenBucket.nano(1.5)).isEqualTo(1_500_000_000L);
        assertThat(TokenBucket.tokens(-2_500_000_000L)).isEqualTo(-2.5);
        assertThat(TokenBucket.micros(-1)).as("rounded down").isEqualTo(-1);
        assertThat(TokenBucket.micros(1_999)).isEqualTo(1);
    }

    @Test
    void aZeroRateRefillsNothing() {
        TokenBucket b = TokenBucket.holding(0, 0);
        assertThat(b.tryTake(1, 1_000_000, 0, BURST)).isFalse();
        assertThat(b.tokens(2_000_000, 0, BURST)).isZero();
    }
}
