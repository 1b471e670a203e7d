package com.fairpix.bench;

import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import com.fairpix.worker.process.ImagePipeline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thumbnails the given files with fairpix's in-process pipeline (no Kafka, no S3) and prints
 * images per second. Like {@code vipsthumbnail -s N} it fits each image inside N × N; like the
 * rivals it reads each file from disk and writes the result to disk, so the comparison in
 * {@code scripts/bench-pipeline} is like for like. One untimed warm-up pass (JIT, OpenCV's native
 * library load) precedes the timed rounds; JVM start-up is not counted.
 *
 * <p>Usage: {@code PipelineBench --threads T --format jpeg|webp --size 256 --quality 80 --rounds R --out DIR FILE...}
 */
public final class PipelineBench {
    public static void main(String[] args) throws Exception {
        int threads = 1, size = 256, quality = 80, rounds = 3;
        String format = "jpeg";
        Path out = Path.of(System.getProperty("java.io.tmpdir"), "fairpix-bench");
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--format" -> format = args[++i];
                case "--size" -> size = Integer.parseInt(args[++i]);
                case "--quality" -> quality = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                default -> files.add(Path.of(args[i]));
            }
        }
        if (files.isEmpty()) throw new IllegalArgumentException("no input files");
        Files.createDirectories(out);
        JobSpec spec = new JobSpec(Map.of("thumb", List.of(
                new Operation.Resize(size, size, Operation.Fit.CONTAIN, false),
                new Operation.Encode(format, quality))), null);
        ImagePipeline pipeline = new ImagePipeline(100_000_000L);
        run(pipeline, spec, files, 1, threads, out); // warm-up
        long t0 = System.nanoTime();
        int done = run(pipeline, spec, files, rounds, threads, out);
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf(java.util.Locale.ROOT, "%.2f images/s (%d images, %.2f s, %d threads, %s q%d %dpx)%n",
                done / seconds, done, seconds, threads, format, quality, size);
    }

    private static int run(ImagePipeline pipeline, JobSpec spec, List<Path> files, int rounds, int threads, Path out) throws Exception {
        List<Path> work = new ArrayList<>();
        for (int r = 0; r < rounds; r++) work.addAll(files);
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    int n = 0;
                    for (int i; (i = next.getAndIncrement()) < work.size(); ) {
                        Path f = work.get(i);
                        ImagePipeline.Output o = pipeline.process(Files.readAllBytes(f), spec).get("thumb");
                        write(out.resolve(f.getFileName() + "." + o.encode().extension()), o.data());
                        n++;
                    }
                    return n;
                }));
            }
            int done = 0;
            for (Future<Integer> f : futures) done += f.get();
            return done;
        } finally {
            pool.shutdown();
        }
    }

    private static void write(Path p, byte[] data) {
        try {
            Files.write(p, data);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
