package com.fairpix.ingest.overload;

import java.util.Map;

/**
 * One ingest node's overload state as published on the control channel and registered in Redis.
 *
 * @param node           the node's id
 * @param at             when it was published, epoch ms (the node's clock)
 * @param breakers       dependency id → the node's own breaker state (CLOSED, OPEN, HALF_OPEN, ...)
 * @param rampStart      when the farm's current ramp began, epoch ms; 0 = never
 * @param rampLevel      the node's admission level, 0..1 (0 while a breaker is open farm-wide)
 * @param shedding       pool → shedding level (0 none, 1 borrowed, 2 all but reserved)
 * @param backlogSeconds pool → backlog as the node last read it, work-seconds
 */
public record NodeState(String node, long at, Map<String, String> breakers, long rampStart, double rampLevel,
                        Map<String, Integer> shedding, Map<String, Double> backlogSeconds) {}
