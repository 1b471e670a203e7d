package com.fairpix.bench;

import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.job.JobCost;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.OutputSize;
import com.fairpix.worker.process.ImagePipeline;
import com.fairpix.worker.process.LibHeif;
import com.fairpix.worker.process.OpenCv;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.core.MatOfInt;
import org.opencv.imgcodecs.Imgcodecs;

/**
 * Holds the cost model ({@link JobCost}) to what the pipeline really spends: every given photo is
 * re-encoded in each input format (the same pixels in every format), each is put through a set
 * of jobs (a 256 px thumbnail and a 1024 px image in each output format and AVIF speed), and the
 * CPU time of the thread that ran each job (median of {@code --repeat} runs, after one warm-up) is
 * set beside the tokens {@link JobCost} charges for it. Printed: one TSV row per job, then the
 * calibration table: per input format and per output encoder, the measured CPU ms per token
 * charged, as a ratio to {@link JobCost#MS_PER_TOKEN} (the model holds where every row is within
 * ±30 %).
 *
 * <p>Usage: {@code CostCalibration [--repeat N] [--tsv FILE] PHOTO...} (JPEG photos; the corpus's
 * camera-trap photos in {@code scripts/bench-cost}).
 */
public final class CostCalibration {
    /** Input formats the photos are re-encoded in; GIF is left out (a palette format, not a photo's). */
    static final List<String> INPUTS = List.of("jpeg", "png", "webp", "tiff", "bmp", "heic", "avif");
    /** The output encoders and their effort settings a job may ask for. */
    static final List<String> OUTPUTS = List.of(
            "{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":80}",
            "{\"op\":\"encode\",\"format\":\"webp\",\"quality\":75}",
            "{\"op\":\"encode\",\"format\":\"webp\",\"lossless\":true}",
            "{\"op\":\"encode\",\"format\":\"png\"}",
            "{\"op\":\"encode\",\"format\":\"avif\",\"quality\":50,\"speed\":9}",
            "{\"op\":\"encode\",\"format\":\"avif\",\"quality\":50,\"speed\":8}",
            "{\"op\":\"encode\",\"format\":\"avif\",\"quality\":50,\"speed\":6}",
            "{\"op\":\"encode\",\"format\":\"avif\",\"quality\":50,\"speed\":4}");
    static final List<String> RESIZES = List.of(
            "{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"}",
            "{\"op\":\"resize\",\"width\":1024,\"height\":1024,\"fit\":\"contain\"}");

    record Row(String photo, String in, String out, String size, long uploadBytes, double cpuMs, double tokens) {}

    public static void main(String[] args) throws Exception {
        int repeat = 3;
        Path tsv = null;
        List<Path> photos = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--repeat" -> repeat = Integer.parseInt(args[++i]);
                case "--tsv" -> tsv = Path.of(args[++i]);
                default -> photos.add(Path.of(args[i]));
            }
        }
        if (photos.isEmpty()) throw new IllegalArgumentException("no photos given");
        OpenCv.ensureLoaded();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ImagePipeline pipeline = new ImagePipeline(100_000_000L);
        List<Row> rows = new ArrayList<>();
        StringBuilder out = new StringBuilder("photo\tin\tout\tsize\tupload_bytes\tdecoded_px\tout_px\tcpu_ms\ttokens\tms_per_token\n");
        for (Path photo : photos) {
            Mat pixels = Imgcodecs.imread(photo.toString(), Imgcodecs.IMREAD_COLOR);
            Map<String, byte[]> inputs = new LinkedHashMap<>();
            for (String in : INPUTS) inputs.put(in, in.equals("jpeg") ? Files.readAllBytes(photo) : encode(pixels, in));
            pixels.release();
            for (var input : inputs.entrySet()) {
                ImageHeader header = ImageHeader.read(input.getValue());
                for (String resize : RESIZES) {
                    for (String encode : OUTPUTS) {
                        // 8 MP AVIF at speed 4 takes a core for seconds a run: the thumbnails say enough of speed 4.
                        if (encode.contains("\"speed\":4") && resize.contains("1024") && header.pixels() > 4_000_000) continue;
                        JobSpec spec = JobSpec.parse("{\"variants\":{\"v\":[" + resize + "," + encode + "]}}");
                        pipeline.process(input.getValue(), spec); // warm-up
                        double[] ms = new double[repeat];
                        for (int r = 0; r < repeat; r++) {
                            long t0 = threads.getCurrentThreadCpuTime();
                            pipeline.process(input.getValue(), spec);
                            ms[r] = (threads.getCurrentThreadCpuTime() - t0) / 1e6;
                        }
                        Arrays.sort(ms);
                        double cpu = ms[repeat / 2];
                        Map<String, OutputSize.Estimate> outputs = OutputSize.of(spec, header.displayWidth(), header.displayHeight());
                        double tokens = JobCost.tokens(header, input.getValue().length, spec, outputs);
                        String size = resize.contains("256") ? "256" : "1024";
                        Row row = new Row(photo.getFileName().toString(), input.getKey(), label(encode), size, input.getValue().length, cpu, tokens);
                        rows.add(row);
                        out.append(String.format(Locale.ROOT, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%.2f\t%.3f\t%.2f%n", row.photo(), row.in(), row.out(), size,
                                row.uploadBytes(), JobCost.decodedPixels(header, spec), outputs.get("v").pixels(), cpu, tokens, cpu / tokens));
                    }
                }
            }
        }
        if (tsv != null) Files.writeString(tsv, out);
        else System.out.print(out);
        System.out.print(table(rows));
    }

    /** Per input format (all its jobs) and per output encoder (all inputs): CPU ms ÷ tokens, as a ratio to {@link JobCost#MS_PER_TOKEN}. */
    static String table(List<Row> rows) {
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT,
                "%n| row | jobs | CPU ms (sum) | tokens charged (sum) | CPU ms per token | ÷ %.1f ms (the model's token) | per job |%n|---|---|---|---|---|---|---|%n", JobCost.MS_PER_TOKEN));
        Map<String, double[]> groups = new TreeMap<>();
        for (Row r : rows) {
            // A decoder's row holds the cheapest encode fixed (JPEG q80), an encoder's the JPEG input.
            List<String> in = r.out().equals("jpeg q80") ? List.of("in " + r.in()) : List.of();
            List<String> out = r.in().equals("jpeg") ? List.of("out " + r.out()) : List.of();
            for (String g : concat(in, out)) {
                double[] s = groups.computeIfAbsent(g, k -> new double[] {0, 0, 0, Double.MAX_VALUE, 0});
                s[0]++;
                s[1] += r.cpuMs();
                s[2] += r.tokens();
                double ratio = r.cpuMs() / r.tokens() / JobCost.MS_PER_TOKEN;
                s[3] = Math.min(s[3], ratio);
                s[4] = Math.max(s[4], ratio);
            }
        }
        groups.forEach((g, s) -> t.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.1f | %.2f | %.2f | %.2f-%.2f |%n", g, s[0], s[1], s[2], s[1] / s[2],
                s[1] / s[2] / JobCost.MS_PER_TOKEN, s[3], s[4])));
        return t.toString();
    }

    static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    static String label(String encode) {
        var m = java.util.regex.Pattern.compile("\"format\":\"(\\w+)\"(?:,\"quality\":(\\d+))?(?:,\"speed\":(\\d+))?").matcher(encode);
        if (!m.find()) return encode;
        if (encode.contains("lossless")) return m.group(1) + " lossless";
        return m.group(1) + (m.group(3) != null ? " s" + m.group(3) : m.group(2) != null ? " q" + m.group(2) : "");
    }

    static byte[] encode(Mat bgr, String format) {
        return switch (format) {
            case "heic" -> LibHeif.encodeHeic(bgr, 80, 1);
            case "avif" -> LibHeif.encodeAvif(bgr, 70, 8);
            default -> {
                MatOfByte buf = new MatOfByte();
                MatOfInt params = format.equals("webp") ? new MatOfInt(Imgcodecs.IMWRITE_WEBP_QUALITY, 90) : new MatOfInt();
                if (!Imgcodecs.imencode("." + (format.equals("jpeg") ? "jpg" : format.equals("tiff") ? "tif" : format), bgr, buf, params)) {
                    throw new IllegalStateException("OpenCV cannot write " + format);
                }
                byte[] b = buf.toArray();
                buf.release();
                params.release();
                yield b;
            }
        };
    }
}
