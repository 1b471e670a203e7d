package com.fairpix.worker.process;

import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.core.Scalar;
import org.opencv.imgcodecs.Imgcodecs;

/** Small synthetic images for step tests. */
final class StepImages {
    private StepImages() {}

    static {
        OpenCv.ensureLoaded();
    }

    static Mat solid(int w, int h, double b, double g, double r) {
        return new Mat(h, w, CvType.CV_8UC3, new Scalar(b, g, r));
    }

    /** A w × h BGR image whose blue channel holds the pixel index (mod 256), so positions are traceable. */
    static Mat indexed(int w, int h) {
        Mat m = new Mat(h, w, CvType.CV_8UC3);
        byte[] px = new byte[w * h * 3];
        for (int i = 0; i < w * h; i++) {
            px[i * 3] = (byte) i;
            px[i * 3 + 1] = (byte) (i * 7);
            px[i * 3 + 2] = (byte) (i * 13);
        }
        m.put(0, 0, px);
        return m;
    }

    static Mat noise(int w, int h, long seed) {
        Mat m = new Mat(h, w, CvType.CV_8UC3);
        byte[] px = new byte[w * h * 3];
        new java.util.Random(seed).nextBytes(px);
        m.put(0, 0, px);
        return m;
    }

    static double[] at(Mat m, int x, int y) {
        return m.get(y, x);
    }

    static boolean same(Mat a, Mat b) {
        if (!a.size().equals(b.size()) || a.type() != b.type()) return false;
        Mat d = new Mat();
        org.opencv.core.Core.absdiff(a, b, d);
        Scalar s = org.opencv.core.Core.sumElems(d);
        d.release();
        return s.val[0] + s.val[1] + s.val[2] + s.val[3] == 0;
    }

    static byte[] encode(Mat m, String ext) {
        MatOfByte out = new MatOfByte();
        Imgcodecs.imencode(ext, m, out);
        return out.toArray();
    }
}
