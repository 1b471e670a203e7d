package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import org.opencv.core.Core;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.core.MatOfInt;
import org.opencv.core.Scalar;
import org.opencv.imgcodecs.Imgcodecs;

/** Small helpers for the image step tests: make, encode, decode and compare Mats. */
final class TestImages {
    private TestImages() {}

    static {
        OpenCv.ensureLoaded();
    }

    static void load() {
        // touching the class runs the static initialiser
    }

    /** A w×h BGR image with a horizontal and vertical gradient, so resizes and crops are visible. */
    static Mat gradient(int w, int h) {
        Mat m = new Mat(h, w, CvType.CV_8UC3);
        byte[] px = new byte[w * h * 3];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int i = (y * w + x) * 3;
                px[i] = (byte) (x * 255 / Math.max(1, w - 1));
                px[i + 1] = (byte) (y * 255 / Math.max(1, h - 1));
                px[i + 2] = (byte) ((x + y) % 256);
            }
        }
        m.put(0, 0, px);
        return m;
    }

    static Mat filled(int w, int h, int type, Scalar value) {
        return new Mat(h, w, type, value);
    }

    static byte[] encode(Mat m, String extension, int... params) {
        MatOfByte out = new MatOfByte();
        MatOfInt p = new MatOfInt(params);
        try {
            assertThat(Imgcodecs.imencode(extension, m, out, p)).as("imencode " + extension).isTrue();
            return out.toArray();
        } finally {
            out.release();
            p.release();
        }
    }

    static Mat decode(byte[] data, int flags) {
        MatOfByte in = new MatOfByte(data);
        try {
            Mat m = Imgcodecs.imdecode(in, flags);
            assertThat(m.empty()).as("decodable").isFalse();
            return m;
        } finally {
            in.release();
        }
    }

    static byte[] jpeg(int w, int h) {
        Mat m = gradient(w, h);
        try {
            return encode(m, ".jpg", Imgcodecs.IMWRITE_JPEG_QUALITY, 90);
        } finally {
            m.release();
        }
    }

    /** Mean absolute difference per channel (B, G, R[, A]) of two same-size images. */
    static double[] meanAbsDiff(Mat a, Mat b) {
        assertThat(a.size()).isEqualTo(b.size());
        Mat diff = new Mat();
        try {
            Core.absdiff(a, b, diff);
            return Core.mean(diff).val;
        } finally {
            diff.release();
        }
    }

    /** Mean absolute difference over all channels, 0–255 levels. */
    static double mad(Mat a, Mat b) {
        double[] perChannel = meanAbsDiff(a, b);
        double sum = 0;
        for (int c = 0; c < a.channels(); c++) sum += perChannel[c];
        return sum / a.channels();
    }

    static double[] mean(Mat m) {
        return Core.mean(m).val;
    }
}
