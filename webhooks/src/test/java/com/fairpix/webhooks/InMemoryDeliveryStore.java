package com.fairpix.webhooks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link DeliveryStore} in memory for tests of what uses it; {@code DeliveryStoreContract} holds it and the Redis store to the same behaviour. */
public final class InMemoryDeliveryStore implements DeliveryStore {
    private final Map<String, WebhookDelivery> records = new ConcurrentHashMap<>();
    /** {@code tenant/id} → due time, epoch ms. */
    public final Map<String, Long> due = new ConcurrentHashMap<>();
    /** Tenants with due work → when each is next to be served, epoch ms (as the Redis store ranks them). */
    public final Map<String, Long> dueTenants = new ConcurrentHashMap<>();
    /** {@code tenant/id} → died at, epoch ms. */
    public final Map<String, Long> dead = new ConcurrentHashMap<>();
    private final Set<String> disabled = ConcurrentHashMap.newKeySet();
    private final Map<String, String> previousSecrets = new ConcurrentHashMap<>();

    private static String key(String tenant, String id) {
        return tenant + "/" + id;
    }

    @Override
    public synchronized Created create(WebhookDelivery d, long maxPending) {
        if (records.putIfAbsent(key(d.tenant(), d.id()), d) != null) return Created.DUPLICATE;
        if (pending(d.tenant()) >= maxPending) return Created.OVER_CAP;
        schedule(d.tenant(), d.id(), d.nextAttemptAt());
        return Created.QUEUED;
    }

    @Override
    public Optional<WebhookDelivery> get(String tenant, String id) {
        return Optional.ofNullable(records.get(key(tenant, id)));
    }

    @Override
    public void save(WebhookDelivery d) {
        records.put(key(d.tenant(), d.id()), d);
    }

    @Override
    public List<WebhookDelivery> list(String tenant, Long beforeMillis, int limit) {
        return records.values().stream()
                .filter(d -> d.tenant().equals(tenant) && (beforeMillis == null || d.createdAt().toEpochMilli() < beforeMillis))
                .sorted(Comparator.comparing(WebhookDelivery::createdAt).reversed())
                .limit(limit).toList();
    }

    @Override
    public synchronized void schedule(String tenant, String id, Instant at) {
        due.put(key(tenant, id), at.toEpochMilli());
        dueTenants.merge(tenant, at.toEpochMilli(), Math::min);
    }

    @Override
    public synchronized void unschedule(String tenant, String id) {
        due.remove(key(tenant, id));
        if (pending(tenant) == 0) dueTenants.remove(tenant);
    }

    @Override
    public synchronized List<String> dueTenants(Instant now, int max) {
        return dueTenants.entrySet().stream().filter(e -> e.getValue() <= now.toEpochMilli())
                .sorted(Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .limit(max).map(Map.Entry::getKey).toList();
    }

    @Override
    public synchronized List<String> claimDue(String tenant, Instant now, Duration lease, int max) {
        List<String> claimed = due.entrySet().stream().filter(e -> e.getKey().startsWith(tenant + "/") && e.getValue() <= now.toEpochMilli())
                .sorted(Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .limit(max).map(Map.Entry::getKey).toList();
        for (String m : claimed) due.put(m, now.plus(lease).toEpochMilli());
        Long next = due.entrySet().stream().filter(e -> e.getKey().startsWith(tenant + "/")).map(Map.Entry::getValue).min(Long::compare).orElse(null);
        if (next == null) dueTenants.remove(tenant);
        else dueTenants.put(tenant, Math.max(next, now.toEpochMilli()));
        return claimed.stream().map(m -> m.substring(tenant.length() + 1)).collect(java.util.stream.Collectors.toCollection(ArrayList::new));
    }

    @Override
    public long pending() {
        return due.size();
    }

    @Override
    public long pending(String tenant) {
        return due.keySet().stream().filter(k -> k.startsWith(tenant + "/")).count();
    }

    @Override
    public void markDead(String tenant, String id, Instant at) {
        dead.put(key(tenant, id), at.toEpochMilli());
    }

    @Override
    public void clearDead(String tenant, String id) {
        dead.remove(key(tenant, id));
    }

    @Override
    public List<String> deadSince(String tenant, Instant since) {
        return dead.entrySet().stream().filter(e -> e.getKey().startsWith(tenant + "/") && e.getValue() >= since.toEpochMilli())
                .sorted(Map.Entry.comparingByValue()).map(e -> e.getKey().substring(tenant.length() + 1)).toList();
    }

    @Override
    public void disable(String tenant, String url) {
        disabled.add(key(tenant, url));
    }

    @Override
    public boolean isDisabled(String tenant, String url) {
        return disabled.contains(key(tenant, url));
    }

    @Override
    public void enable(String tenant, String url) {
        disabled.remove(key(tenant, url));
    }

    @Override
    public void enableAll(String tenant) {
        disabled.removeIf(k -> k.startsWith(tenant + "/"));
    }

    @Override
    public Optional<String> previousSecret(String tenant) {
        return Optional.ofNullable(previousSecrets.get(tenant));
    }

    @Override
    public void keepPreviousSecret(String tenant, String secret, Duration overlap) {
        if (secret == null || overlap.isZero()) return;
        previousSecrets.put(tenant, secret);
    }
}
