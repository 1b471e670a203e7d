package com.fairpix.worker.consume;

import com.fairpix.core.job.JobMessage;
import java.time.Instant;
import org.apache.kafka.common.TopicPartition;

/**
 * A buffered job with where it came from and how often this worker has tried it.
 *
 * @param partition  the partition its record was read from
 * @param offset     its record's offset there: what a commit must not pass until the job is finished
 * @param attempt    this worker's attempt at it, from 1
 * @param enqueuedAt the Kafka record's timestamp: when the ingest queued the job
 * @param bytes      the record's value size, bytes (what it costs the read-ahead)
 */
public record Delivery(TopicPartition partition, long offset, JobMessage message, int attempt, Instant enqueuedAt, int bytes) {}
