package com.fairpix.worker.store;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.job.JobMessage;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.storage.ObjectStore;
import com.fairpix.core.storage.StorageKeys;
import com.fairpix.worker.process.ImagePipeline;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads originals and writes results, always under the message's own tenant prefix: keys are
 * re-derived from tenant and job id, and an original key outside the tenant's prefix is refused.
 */
public final class ResultWriter {
    private final ObjectStore objects;
    private final long maxSourceBytes;

    public ResultWriter(ObjectStore objects, long maxSourceBytes) {
        this.objects = objects;
        this.maxSourceBytes = maxSourceBytes;
    }

    /** @throws SecurityException when the message points outside its tenant's prefix */
    public byte[] readOriginal(JobMessage message) {
        String key = message.original().key();
        if (!StorageKeys.ownedBy(message.tenant(), key)) {
            throw new SecurityException("original key " + key + " is outside tenant " + message.tenant() + "'s prefix");
        }
        try {
            return objects.get(key, maxSourceBytes);
        } catch (ObjectStore.ObjectTooLargeException e) {
            throw new Permanent("original-too-large", "the original " + key + " is over the worker's limit of " + maxSourceBytes
                    + " bytes (ingest.max-upload-bytes)");
        }
    }

    /**
     * Reads an object a job's spec refers to (a watermark). Only the tenant's own objects: the spec
     * was checked at ingest, and is checked again here because the message is the trust boundary.
     *
     * @throws Permanent {@code forbidden-key} outside the tenant's prefix,
     *                              {@code asset-not-found} when there is no such object,
     *                              {@code asset-too-large} when it is over the read limit
     */
    public byte[] readAsset(JobMessage message, String key) {
        if (!StorageKeys.ownedBy(message.tenant(), key)) {
            throw new Permanent("forbidden-key", "key " + key + " is outside tenant " + message.tenant() + "'s prefix");
        }
        try {
            return objects.get(key, maxSourceBytes);
        } catch (ObjectStore.ObjectNotFoundException e) {
            throw new Permanent("asset-not-found", "no object at " + key);
        } catch (ObjectStore.ObjectTooLargeException e) {
            // The tenant's own choice of object: a permanent failure of this job, and (ClientErrors)
            // no failure of S3's: it counts neither way in the farm-wide breaker.
            throw new Permanent("asset-too-large", "the object " + key + " is over the limit of " + maxSourceBytes
                    + " bytes an asset may have (ingest.max-upload-bytes)");
        }
    }

    /** Stores every output at its deterministic key; returns the results for the job record. */
    public Map<String, JobRecord.Result> write(JobMessage message, Map<String, ImagePipeline.Output> outputs) {
        Map<String, JobRecord.Result> results = new LinkedHashMap<>();
        for (var e : outputs.entrySet()) {
            ImagePipeline.Output out = e.getValue();
            String key = StorageKeys.result(message.tenant(), message.jobId(), e.getKey(), out.encode().extension());
            objects.put(key, out.data(), out.encode().contentType());
            results.put(e.getKey(), new JobRecord.Result(key, out.encode().format(), out.encode().contentType(), out.width(), out.height(), out.data().length));
        }
        return results;
    }
}
