package com.fairpix.worker.process;

import com.fairpix.core.error.Permanent;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.imgproc.Imgproc;

/**
 * HEIC and AVIF through libheif (https://github.com/strukturag/libheif, C API {@code heif.h},
 * 1.15 or later), called through JNA: decoding with the system's libde265 (HEVC) and dav1d or
 * libaom (AV1), AVIF encoding with libaom. Debian 12's {@code libheif1} has all of them; the worker
 * runs without it and says so ({@link #available()}), refusing HEIC/AVIF jobs with a reason.
 *
 * <p>Decoding applies the file's transformations (irot, imir, clap) as libheif does by default,
 * converts HDR (10/12-bit) to 8 bits and returns BGR or BGRA, the layout every other decoder here
 * returns. Each call has its own {@code heif_context}; libheif is thread-safe across contexts.
 */
public final class LibHeif {
    private LibHeif() {}

    // heif.h enum values (libheif 1.15).
    private static final int COMPRESSION_HEVC = 1, COMPRESSION_AV1 = 4;
    private static final int COLORSPACE_RGB = 1;
    private static final int CHROMA_RGB = 10, CHROMA_RGBA = 11;
    private static final int CHANNEL_INTERLEAVED = 10;
    /** Offset of {@code convert_hdr_to_8bit} in {@code struct heif_decoding_options} (LP64: version, flag, 4 pointers). */
    private static final long OPTION_CONVERT_HDR_TO_8BIT = 40;

    /** {@code struct heif_error}, returned by value. */
    public static class HeifError extends Structure {
        public int code;
        public int subcode;
        public String message;

        public static class ByValue extends HeifError implements Structure.ByValue {}

        @Override
        protected List<String> getFieldOrder() {
            return List.of("code", "subcode", "message");
        }
    }

    @SuppressWarnings("checkstyle:MethodName")
    interface Api extends Library {
        String heif_get_version();
        HeifError.ByValue heif_init(Pointer params);
        int heif_have_decoder_for_format(int format);
        int heif_have_encoder_for_format(int format);
        Pointer heif_context_alloc();
        void heif_context_free(Pointer ctx);
        void heif_context_set_maximum_image_size_limit(Pointer ctx, int maximumWidth);
        HeifError.ByValue heif_context_read_from_memory_without_copy(Pointer ctx, Pointer mem, long size, Pointer options);
        HeifError.ByValue heif_context_get_primary_image_handle(Pointer ctx, PointerByReference handle);
        void heif_image_handle_release(Pointer handle);
        int heif_image_handle_has_alpha_channel(Pointer handle);
        int heif_image_handle_get_width(Pointer handle);
        int heif_image_handle_get_height(Pointer handle);
        Pointer heif_decoding_options_alloc();
        void heif_decoding_options_free(Pointer options);
        HeifError.ByValue heif_decode_image(Pointer handle, PointerByReference image, int colorspace, int chroma, Pointer options);
        int heif_image_get_width(Pointer image, int channel);
        int heif_image_get_height(Pointer image, int channel);
        int heif_image_get_bits_per_pixel_range(Pointer image, int channel);
        Pointer heif_image_get_plane_readonly(Pointer image, int channel, IntByReference stride);
        Pointer heif_image_get_plane(Pointer image, int channel, IntByReference stride);
        void heif_image_release(Pointer image);
        HeifError.ByValue heif_image_create(int width, int height, int colorspace, int chroma, PointerByReference image);
        HeifError.ByValue heif_image_add_plane(Pointer image, int channel, int width, int height, int bitDepth);
        HeifError.ByValue heif_context_get_encoder_for_format(Pointer ctx, int format, PointerByReference encoder);
        void heif_encoder_release(Pointer encoder);
        HeifError.ByValue heif_encoder_set_lossy_quality(Pointer encoder, int quality);
        HeifError.ByValue heif_encoder_set_parameter_integer(Pointer encoder, String name, int value);
        Pointer heif_encoding_options_alloc();
        void heif_encoding_options_free(Pointer options);
        HeifError.ByValue heif_context_encode_image(Pointer ctx, Pointer image, Pointer encoder, Pointer options, PointerByReference handle);
        HeifError.ByValue heif_context_write_to_file(Pointer ctx, String filename);
    }

    /** What this machine's libheif can do; {@code api} is null when it was not found. */
    record Support(Api api, String version, boolean hevcIn, boolean av1In, boolean av1Out, boolean hevcOut, String problem) {}

    private static final Support SUPPORT = load();

    private static Support load() {
        Api api = null;
        String problem = null;
        for (String name : new String[] {"heif", "libheif.so.1"}) {
            try {
                api = Native.load(name, Api.class);
                break;
            } catch (UnsatisfiedLinkError e) {
                problem = "libheif not found (" + e.getMessage().lines().findFirst().orElse("") + "); install libheif1 (Debian/Ubuntu) for HEIC and AVIF";
            }
        }
        if (api == null) return new Support(null, null, false, false, false, false, problem);
        try {
            api.heif_init(null);
            return new Support(api, api.heif_get_version(), api.heif_have_decoder_for_format(COMPRESSION_HEVC) != 0,
                    api.heif_have_decoder_for_format(COMPRESSION_AV1) != 0, api.heif_have_encoder_for_format(COMPRESSION_AV1) != 0,
                    api.heif_have_encoder_for_format(COMPRESSION_HEVC) != 0, null);
        } catch (UnsatisfiedLinkError e) {
            return new Support(null, null, false, false, false, false, "libheif too old (needs 1.15 or later): " + e.getMessage());
        }
    }

    static Support support() {
        return SUPPORT;
    }

    /** True when libheif was loaded. */
    public static boolean available() {
        return SUPPORT.api() != null;
    }

    /**
     * Decodes the primary image of a HEIC or AVIF file.
     *
     * @return a new upright 8-bit BGR or BGRA Mat; the caller releases it
     * @throws Permanent {@code unsupported-format} without libheif or its codec,
     *                              {@code undecodable} when libheif refuses the data
     */
    public static Mat decode(byte[] data, boolean av1, int maxSide) {
        return decode(data, av1, maxSide, (long) maxSide * maxSide);
    }

    /** The most a coded side may exceed the displayed one by, pixels: HEVC's largest coding tree block (an AV1 frame is coded at its own size). */
    static final int CODING_BLOCK = 64;

    /**
     * As {@link #decode(byte[], boolean, int)}, refusing before any pixel is decoded an image whose
     * displayed side passes {@code maxSide} or whose handle gives more than {@code maxPixels}: what the
     * header gate saw is what may come out. libheif's own limit, which also bounds a grid's output,
     * is set {@link #CODING_BLOCK} above {@code maxSide}, since it checks the coded size.
     */
    public static Mat decode(byte[] data, boolean av1, int maxSide, long maxPixels) {
        Api api = require(av1 ? SUPPORT.av1In() : SUPPORT.hevcIn(), av1 ? "AVIF (AV1) decoding" : "HEIC (HEVC) decoding");
        Memory mem = new Memory(data.length);
        mem.write(0, data, 0, data.length);
        Pointer ctx = api.heif_context_alloc();
        Pointer handle = null, image = null, options = null;
        try {
            // libheif checks the coded size, which an encoder rounds up to whole coding blocks (HEVC's
            // are up to 64 px: a 250x170 picture is coded 256x176), and refuses a side equal to its limit
            // ("4096x800 exceeds the maximum 4096x4096"). The displayed size is held to the header's just below.
            api.heif_context_set_maximum_image_size_limit(ctx, maxSide + CODING_BLOCK + 1);
            check(api.heif_context_read_from_memory_without_copy(ctx, mem, data.length, null), "read");
            PointerByReference h = new PointerByReference();
            check(api.heif_context_get_primary_image_handle(ctx, h), "primary image");
            handle = h.getValue();
            long hw = api.heif_image_handle_get_width(handle), hh = api.heif_image_handle_get_height(handle);
            if (hw * hh > maxPixels || Math.max(hw, hh) > maxSide) {
                throw new Permanent("undecodable", "libheif would decode " + hw + "x" + hh + ", more than the header's " + maxPixels + " pixels");
            }
            boolean alpha = api.heif_image_handle_has_alpha_channel(handle) != 0;
            options = api.heif_decoding_options_alloc();
            options.setByte(OPTION_CONVERT_HDR_TO_8BIT, (byte) 1);
            PointerByReference img = new PointerByReference();
            check(api.heif_decode_image(handle, img, COLORSPACE_RGB, alpha ? CHROMA_RGBA : CHROMA_RGB, options), "decode");
            image = img.getValue();
            int w = api.heif_image_get_width(image, CHANNEL_INTERLEAVED), hgt = api.heif_image_get_height(image, CHANNEL_INTERLEAVED);
            int bits = api.heif_image_get_bits_per_pixel_range(image, CHANNEL_INTERLEAVED);
            if (w <= 0 || hgt <= 0 || (long) w * hgt > maxPixels || Math.max(w, hgt) > maxSide || bits != 8) throw new Permanent("undecodable", "libheif returned a " + w + "x" + hgt + " image of " + bits + " bits");
            IntByReference stride = new IntByReference();
            Pointer plane = api.heif_image_get_plane_readonly(image, CHANNEL_INTERLEAVED, stride);
            int channels = alpha ? 4 : 3;
            Mat rgb = new Mat(hgt, w, CvType.CV_8UC(channels));
            byte[] row = new byte[w * channels];
            for (int y = 0; y < hgt; y++) {
                plane.read((long) y * stride.getValue(), row, 0, row.length);
                rgb.put(y, 0, row);
            }
            Mat bgr = new Mat();
            Imgproc.cvtColor(rgb, bgr, alpha ? Imgproc.COLOR_RGBA2BGRA : Imgproc.COLOR_RGB2BGR);
            rgb.release();
            return bgr;
        } finally {
            if (options != null) api.heif_decoding_options_free(options);
            if (image != null) api.heif_image_release(image);
            if (handle != null) api.heif_image_handle_release(handle);
            api.heif_context_free(ctx);
            mem.close();
        }
    }

    /**
     * Encodes an 8-bit BGR or BGRA image as AVIF (AV1 still image, 4:2:0, alpha kept), with no
     * metadata.
     *
     * @param quality 1–100, libheif's lossy quality (mapped by the AV1 plugin onto its quantiser)
     * @param speed   1–9, libaom's speed preset (cpu-used)
     * @throws Permanent {@code unsupported-format} without libheif or an AV1 encoder
     */
    public static byte[] encodeAvif(Mat bgr, int quality, int speed) {
        return encode(bgr, COMPRESSION_AV1, quality, speed, 1);
    }

    /**
     * Encodes as HEIC (HEVC, x265) with an orientation recorded as irot/imir: for tests and tools
     * that need a real phone-like file (fairpix does not offer HEIC output).
     *
     * @param orientation EXIF value 1–8 that the file's transformations express; the file displays
     *                    {@code bgr} turned as that value says
     * @throws Permanent {@code unsupported-format} without libheif or an HEVC encoder
     */
    public static byte[] encodeHeic(Mat bgr, int quality, int orientation) {
        return encode(bgr, COMPRESSION_HEVC, quality, 0, orientation);
    }

    private static byte[] encode(Mat bgr, int format, int quality, int speed, int orientation) {
        boolean av1 = format == COMPRESSION_AV1;
        Api api = require(av1 ? SUPPORT.av1Out() : SUPPORT.hevcOut(), av1 ? "AVIF (AV1) encoding" : "HEIC (HEVC) encoding");
        boolean alpha = bgr.channels() == 4;
        int w = bgr.cols(), h = bgr.rows(), channels = alpha ? 4 : 3;
        Mat rgb = new Mat();
        Imgproc.cvtColor(bgr, rgb, alpha ? Imgproc.COLOR_BGRA2RGBA : Imgproc.COLOR_BGR2RGB);
        Pointer ctx = api.heif_context_alloc();
        Pointer image = null, encoder = null, options = null;
        Path file = null;
        try {
            PointerByReference img = new PointerByReference();
            checkEncode(api.heif_image_create(w, h, COLORSPACE_RGB, alpha ? CHROMA_RGBA : CHROMA_RGB, img), "create image");
            image = img.getValue();
            checkEncode(api.heif_image_add_plane(image, CHANNEL_INTERLEAVED, w, h, 8), "add plane");
            IntByReference stride = new IntByReference();
            Pointer plane = api.heif_image_get_plane(image, CHANNEL_INTERLEAVED, stride);
            byte[] row = new byte[w * channels];
            for (int y = 0; y < h; y++) {
                rgb.get(y, 0, row);
                plane.write((long) y * stride.getValue(), row, 0, row.length);
            }
            PointerByReference enc = new PointerByReference();
            checkEncode(api.heif_context_get_encoder_for_format(ctx, format, enc), "encoder");
            encoder = enc.getValue();
            checkEncode(api.heif_encoder_set_lossy_quality(encoder, quality), "quality");
            if (av1) {
                checkEncode(api.heif_encoder_set_parameter_integer(encoder, "speed", speed), "speed");
                // One thread per job: the worker already runs about one job per core.
                api.heif_encoder_set_parameter_integer(encoder, "threads", 1);
            }
            if (orientation > 1) {
                options = api.heif_encoding_options_alloc();
                // struct heif_encoding_options (v5, LP64): image_orientation is the int at offset 20.
                if (options.getByte(0) < 5) throw new IllegalStateException("libheif's encoding options have no orientation (needs 1.14+)");
                options.setInt(20, orientation);
            }
            checkEncode(api.heif_context_encode_image(ctx, image, encoder, options, null), "encode");
            // libheif writes through a callback or to a file; a file avoids a by-value struct return from Java.
            file = Files.createTempFile("fairpix-heif-", av1 ? ".avif" : ".heic");
            checkEncode(api.heif_context_write_to_file(ctx, file.toString()), "write");
            byte[] out = Files.readAllBytes(file);
            if (orientation >= 5) unrotateIspe(out, w, h);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            rgb.release();
            if (options != null) api.heif_encoding_options_free(options);
            if (encoder != null) api.heif_encoder_release(encoder);
            if (image != null) api.heif_image_release(image);
            api.heif_context_free(ctx);
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // a leftover fairpix-heif-* file in the temporary directory
                }
            }
        }
    }

    /**
     * libheif 1.15 records a turned image's ispe with the turned size; ISO/IEC 23008-12 §6.5.3 (and
     * Apple's files) give the size before the transformations, the coded size. Put it right, so
     * that the file is what a phone writes.
     */
    private static void unrotateIspe(byte[] file, int width, int height) {
        for (int i = 4; i + 16 <= file.length; i++) {
            if (file[i] == 'i' && file[i + 1] == 's' && file[i + 2] == 'p' && file[i + 3] == 'e') {
                java.nio.ByteBuffer.wrap(file, i + 8, 8).putInt(width).putInt(height);
                return;
            }
        }
    }

    private static Api require(boolean codec, String what) {
        if (SUPPORT.api() == null) throw new Permanent("unsupported-format", what + " is not available on this worker: " + SUPPORT.problem());
        if (!codec) throw new Permanent("unsupported-format", what + " is not available on this worker: libheif " + SUPPORT.version() + " has no codec for it");
        return SUPPORT.api();
    }

    /** An encoder failure is the farm's, not the upload's: a transient error the job may retry. */
    private static void checkEncode(HeifError.ByValue e, String step) {
        if (e.code != 0) throw new IllegalStateException("libheif " + step + ": " + e.message + " (error " + e.code + "." + e.subcode + ")");
    }

    private static void check(HeifError.ByValue e, String step) {
        if (e.code != 0) throw new Permanent("undecodable", "libheif " + step + ": " + e.message + " (error " + e.code + "." + e.subcode + ")");
    }
}
