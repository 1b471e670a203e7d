package com.fairpix.worker.process;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.image.ImageFormat;
import com.fairpix.core.image.ImageHeader;
import com.fairpix.core.job.JobSpec;
import com.fairpix.core.job.Operation;
import java.util.ArrayList;
import java.util.List;
import org.opencv.core.Core;
import org.opencv.core.CvException;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.core.Scalar;
import org.opencv.imgcodecs.Imgcodecs;
import org.opencv.imgproc.Imgproc;

/**
 * Decode step, in two halves. {@link #plan} reads only the header: format allow-list (magic
 * bytes), pixel limit, animation, truncation (JPEG without EOI, PNG without IEND, TIFF strips or BMP
 * rows past the end, a GIF cut inside a block: OpenCV would return a grey-filled picture with only
 * a stderr warning), and the JPEG shrink-on-load factor
 * (libjpeg DCT scaling via {@code IMREAD_REDUCED_COLOR_2/4/8}, chosen so the decoded image still
 * covers the largest requested output). {@link #apply} then decodes and normalises to an upright
 * 8-bit BGR or BGRA image.
 *
 * <p>JPEG is decoded as colour with {@code IMREAD_IGNORE_ORIENTATION} (libjpeg converts CMYK/YCCK
 * to BGR; no ICC is applied); PNG and WebP with {@code IMREAD_UNCHANGED} to keep alpha and 16 bits.
 * TIFF goes through libtiff's colour conversion (CMYK to BGR) unless it declares alpha; BMP is read
 * as colour; the first page of a multi-page TIFF is decoded (OpenCV's {@code imdecode}, as
 * libvips' default {@code page=0}). GIF goes to {@link GifDecode} (the JDK's reader), HEIC and AVIF
 * to {@link LibHeif}. EXIF orientation is applied by {@link Orient}, since OpenCV never rotates
 * JPEG, PNG or WebP under {@code IMREAD_UNCHANGED}; TIFF's Orientation tag is applied by OpenCV's
 * TIFF decoder (always, whatever the flags) and HEIF's transformations by libheif. 16-bit is scaled by 1/257 (OpenCV's own conversion clips), grey
 * expanded to BGR, and grey + tRNS (which OpenCV 4.9 turns opaque) gets its alpha back.
 */
public final class Decode {
    private final long maxPixels;

    /** @param maxPixels largest source accepted, pixels */
    public Decode(long maxPixels) {
        this.maxPixels = maxPixels;
    }

    /**
     * Everything that can be known before allocating pixels.
     *
     * @throws Permanent reasons {@code unsupported-format}, {@code undecodable-header},
     *                              {@code image-too-complex}, {@code too-many-pixels}, {@code animated}, {@code truncated}
     */
    public DecodePlan plan(byte[] data, JobSpec spec) {
        ImageHeader header;
        try {
            header = ImageHeader.read(data);
        } catch (ImageHeader.HeaderException e) {
            throw new Permanent(e.overLimit() ? "image-too-complex" : "undecodable-header", e.getMessage());
        }
        if (header == null) throw new Permanent("unsupported-format", "not a JPEG, PNG, WebP, TIFF, BMP, GIF, HEIC or AVIF image (checked by its first bytes)");
        if (header.gatePixels() > maxPixels) {
            throw new Permanent("too-many-pixels", header.width() + "x" + header.height() + (header.gatePixels() > header.pixels() ? " (" + header.gatePixels() + " pixels decoded on the way)" : "")
                    + " is over the worker limit of " + maxPixels + " pixels (worker.max-pixels)");
        }
        if (header.animated()) {
            throw new Permanent("animated", "animated images are not supported"
                    + (header.pages() > 1 ? " (this " + header.format().id() + " has " + header.pages() + " frames)" : "") + "; fairpix never silently keeps only the first frame");
        }
        // OpenCV fills a truncated file's missing part with grey and only warns on stderr.
        if (!header.complete()) throw new Permanent("truncated", "the " + header.format().id() + " file ends before its end marker");

        switch (header.format()) {
            case PNG, WEBP -> {
                return new DecodePlan(header, Imgcodecs.IMREAD_UNCHANGED, 1, header.width(), header.height());
            }
            case TIFF -> {
                // OpenCV 4.9 returned no image for a CIELab TIFF; 4.13 (libtiff 4.7) decodes one, with
                // colours far from libvips' (mean abs diff 14 on blue for the corpus' cielab-dagams.tiff):
                // refused as before, by its header (issue 35: the new build changes speed, not outcomes).
                if (com.fairpix.core.image.ImageHeader.tiffLab(data)) {
                    throw new Permanent("undecodable", "the tiff data cannot be decoded: " + TIFF_READS);
                }
                // Through libtiff's colour conversion (CMYK, palette, YCbCr, 1-bit fax to BGR) keeping
                // 16 bits, unless the file declares alpha: IMREAD_UNCHANGED keeps it, and gives raw
                // samples, which is right for RGB(A) and grey(+alpha) but not for CMYK (never with alpha here).
                int flags = header.alpha() ? Imgcodecs.IMREAD_UNCHANGED
                        : Imgcodecs.IMREAD_COLOR | Imgcodecs.IMREAD_ANYDEPTH | Imgcodecs.IMREAD_IGNORE_ORIENTATION;
                // OpenCV 4.9's TIFF decoder applies the Orientation tag itself, whatever the flags
                // (measured for all eight values, FormatsTest): it returns the displayed size.
                return new DecodePlan(header, flags, 1, header.displayWidth(), header.displayHeight());
            }
            case BMP -> {
                // Colour only: most 32-bit BMPs leave the fourth byte 0, which read as alpha would be invisible.
                return new DecodePlan(header, Imgcodecs.IMREAD_COLOR | Imgcodecs.IMREAD_IGNORE_ORIENTATION, 1, header.width(), header.height());
            }
            case GIF -> {
                return new DecodePlan(header, 0, 1, header.width(), header.height());
            }
            case HEIC, AVIF -> {
                // libheif applies the file's transformations: it returns the image as displayed.
                return new DecodePlan(header, 0, 1, header.displayWidth(), header.displayHeight());
            }
            case JPEG -> { }
        }
        int reduction = reductionFor(header, spec);
        int flags = switch (reduction) {
            case 8 -> Imgcodecs.IMREAD_REDUCED_COLOR_8;
            case 4 -> Imgcodecs.IMREAD_REDUCED_COLOR_4;
            case 2 -> Imgcodecs.IMREAD_REDUCED_COLOR_2;
            default -> Imgcodecs.IMREAD_COLOR;
        };
        // libjpeg rounds scaled sizes up (jdmaster.c jdiv_round_up).
        return new DecodePlan(header, flags | Imgcodecs.IMREAD_IGNORE_ORIENTATION, reduction,
                (header.width() + reduction - 1) / reduction, (header.height() + reduction - 1) / reduction);
    }

    /**
     * @throws Permanent reasons of {@link #plan}, and {@code undecodable}
     */
    public Decoded apply(byte[] data, JobSpec spec) {
        return apply(data, plan(data, spec));
    }

    /** Decodes as planned. @throws Permanent {@code undecodable}; {@code unsupported-format} for HEIC/AVIF without libheif */
    public Decoded apply(byte[] data, DecodePlan plan) {
        ImageHeader header = plan.header();
        Mat raw = switch (header.format()) {
            case GIF -> GifDecode.decode(data, header);
            case HEIC, AVIF -> LibHeif.decode(data, header.format() == ImageFormat.AVIF, Math.max(header.width(), header.height()), header.pixels());
            default -> imdecode(data, plan);
        };
        boolean heif = header.format() == ImageFormat.HEIC || header.format() == ImageFormat.AVIF;
        // HEIF: libheif is the authority on geometry. A clean aperture (clap) crops below the ispe
        // size, and libheif 1.15's own writer records a rotated image's ispe already rotated; what
        // matters is that no more pixels come out than the gate let through, nor a longer side.
        boolean sizeOk = heif
                ? raw.total() <= header.pixels() && Math.max(raw.cols(), raw.rows()) <= Math.max(header.width(), header.height())
                : raw.cols() == plan.decodedWidth() && raw.rows() == plan.decodedHeight();
        if (!sizeOk) {
            // The header and the codec disagree: a crafted or damaged file; do not trust either.
            int w = raw.cols(), h = raw.rows();
            raw.release();
            throw new Permanent("undecodable", "decoded " + w + "x" + h + " but the header says " + plan.decodedWidth() + "x" + plan.decodedHeight());
        }
        Mat eight = normalise(raw, header.format() == ImageFormat.PNG ? greyTransparent(data) : -1);
        // libheif and OpenCV's TIFF decoder have applied the file's orientation already.
        boolean oriented = heif || header.format() == ImageFormat.TIFF;
        Mat upright = oriented ? eight : Orient.apply(eight, header.orientation());
        if (upright != eight) eight.release();
        return new Decoded(upright, plan.reduction());
    }

    private static Mat imdecode(byte[] data, DecodePlan plan) {
        Mat raw;
        MatOfByte buffer = new MatOfByte(data);
        try {
            raw = Imgcodecs.imdecode(buffer, plan.flags());
        } catch (CvException e) {
            throw new Permanent("undecodable", "the decoder refused the image: " + e.getMessage());
        } finally {
            buffer.release();
        }
        if (raw.empty()) {
            raw.release();
            throw new Permanent("undecodable", "the " + plan.header().format().id() + " data cannot be decoded"
                    + (plan.header().format() == ImageFormat.TIFF ? " (" + TIFF_READS + ")" : ""));
        }
        return raw;
    }

    private static final String TIFF_READS = "OpenCV's libtiff path reads RGB, grey, palette, CMYK, YCbCr and fax TIFFs, not CIELAB";

    /** The JPEG scale denominator the decode uses: {@link com.fairpix.core.job.JobCost#jpegReduction}, the one rule admission prices. */
    static int reductionFor(ImageHeader header, JobSpec spec) {
        return com.fairpix.core.job.JobCost.jpegReduction(header, spec);
    }

    /**
     * For a grey PNG with a tRNS chunk, the 8-bit (or, for 16-bit files, 16-bit) sample value that is
     * transparent, as OpenCV's decoder delivers samples (libpng expands 1/2/4-bit grey by bit
     * replication: ×255, ×85, ×17); -1 otherwise. PNG spec §11.3.2.1.
     */
    static int greyTransparent(byte[] d) {
        if (d.length < 33) return -1;
        int depth = d[24] & 0xFF, colourType = d[25] & 0xFF;
        if (colourType != 0) return -1;
        long i = 8;
        while (i + 12 <= d.length) {
            int at = (int) i;
            long len = ((long) (d[at] & 0xFF) << 24) | ((d[at + 1] & 0xFF) << 16) | ((d[at + 2] & 0xFF) << 8) | (d[at + 3] & 0xFF);
            if (d[at + 4] == 'I' && d[at + 5] == 'D' && d[at + 6] == 'A' && d[at + 7] == 'T') return -1; // tRNS comes before IDAT
            if (d[at + 4] == 't' && d[at + 5] == 'R' && d[at + 6] == 'N' && d[at + 7] == 'S') {
                if (len < 2 || at + 10 > d.length) return -1;
                int v = ((d[at + 8] & 0xFF) << 8) | (d[at + 9] & 0xFF);
                return switch (depth) {
                    case 1 -> (v & 1) * 255;
                    case 2 -> (v & 3) * 85;
                    case 4 -> (v & 15) * 17;
                    case 8 -> v & 0xFF;
                    case 16 -> v;
                    default -> -1;
                };
            }
            i += 12 + len;
        }
        return -1;
    }

    /** To 8 bits, and to BGR or BGRA. @param transparentGrey see {@link #greyTransparent} */
    private static Mat normalise(Mat raw, int transparentGrey) {
        Mat m = raw;
        Mat alpha = null;
        if (m.channels() == 1 && transparentGrey >= 0) {
            Mat mask = new Mat();
            Core.inRange(m, new Scalar(transparentGrey), new Scalar(transparentGrey), mask);
            alpha = new Mat();
            Core.bitwise_not(mask, alpha);
            mask.release();
        }
        if (m.depth() == CvType.CV_16U) {
            Mat eight = new Mat();
            m.convertTo(eight, CvType.CV_8U, 1.0 / 257.0);
            m.release();
            m = eight;
        } else if (m.depth() != CvType.CV_8U) {
            Mat eight = new Mat();
            Core.normalize(m, eight, 0, 255, Core.NORM_MINMAX, CvType.CV_8U);
            m.release();
            m = eight;
        }
        if (m.channels() == 1) {
            Mat bgr = new Mat();
            Imgproc.cvtColor(m, bgr, Imgproc.COLOR_GRAY2BGR);
            m.release();
            if (alpha == null) return bgr;
            List<Mat> planes = new ArrayList<>();
            Core.split(bgr, planes);
            planes.add(alpha);
            Mat bgra = new Mat();
            Core.merge(planes, bgra);
            planes.forEach(Mat::release);
            bgr.release();
            return bgra;
        }
        if (m.channels() == 2) {
            // grey + alpha: OpenCV has no GRAY+ALPHA conversion; expand the grey, keep the alpha.
            List<Mat> planes = new ArrayList<>();
            Core.split(m, planes);
            Mat bgra = new Mat();
            Core.merge(List.of(planes.get(0), planes.get(0), planes.get(0), planes.get(1)), bgra);
            planes.forEach(Mat::release);
            m.release();
            return bgra;
        }
        return m;
    }
}
