package com.fairpix.worker.process;

import com.fairpix.core.error.Permanent;
import com.fairpix.core.image.ImageHeader;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Iterator;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.stream.ImageInputStream;
import org.opencv.core.CvType;
import org.opencv.core.Mat;
import org.w3c.dom.Node;

/**
 * Still GIFs through the JDK's own GIF reader (OpenCV 4.9 has no GIF decoder): the first frame
 * drawn at its position on a transparent canvas of the header's size, as BGRA. Animated files never
 * get here (the plan refuses them), and the header walk has already checked every frame's size
 * against the pixel limit, since the reader allocates a frame at its own size.
 */
final class GifDecode {
    private GifDecode() {}

    static {
        ImageIO.setUseCache(false); // no temporary files for a stream read from memory
    }

    /** @throws Permanent {@code undecodable} when the reader refuses the data */
    static Mat decode(byte[] data, ImageHeader header) {
        Iterator<ImageReader> readers = ImageIO.getImageReadersByFormatName("gif");
        if (!readers.hasNext()) throw new IllegalStateException("the JDK has no GIF reader");
        ImageReader reader = readers.next();
        BufferedImage frame;
        int left = 0, top = 0;
        try (ImageInputStream in = ImageIO.createImageInputStream(new ByteArrayInputStream(withoutExtensions(data)))) {
            reader.setInput(in, true, false);
            frame = reader.read(0);
            IIOMetadata meta = reader.getImageMetadata(0);
            Node descriptor = find(meta.getAsTree("javax_imageio_gif_image_1.0"), "ImageDescriptor");
            if (descriptor != null) {
                left = Integer.parseInt(descriptor.getAttributes().getNamedItem("imageLeftPosition").getNodeValue());
                top = Integer.parseInt(descriptor.getAttributes().getNamedItem("imageTopPosition").getNodeValue());
            }
        } catch (IOException | RuntimeException e) {
            throw new Permanent("undecodable", "the gif data cannot be decoded: " + e.getMessage());
        } finally {
            reader.dispose();
        }
        int w = header.width(), h = header.height();
        Mat out = new Mat(h, w, CvType.CV_8UC4, new org.opencv.core.Scalar(0, 0, 0, 0));
        int fw = Math.min(frame.getWidth(), w - left), fh = Math.min(frame.getHeight(), h - top);
        if (fw <= 0 || fh <= 0) return out; // a frame off the canvas draws nothing
        int[] argb = new int[fw];
        byte[] bgra = new byte[fw * 4];
        for (int y = 0; y < fh; y++) {
            frame.getRGB(0, y, fw, 1, argb, 0, fw);
            for (int x = 0; x < fw; x++) {
                int p = argb[x];
                bgra[x * 4] = (byte) p;
                bgra[x * 4 + 1] = (byte) (p >> 8);
                bgra[x * 4 + 2] = (byte) (p >> 16);
                bgra[x * 4 + 3] = (byte) (p >>> 24);
            }
            out.put(top + y, left, bgra);
        }
        return out;
    }

    /**
     * The GIF without its comment, application and plain-text extensions: the JDK's reader joins an
     * extension's sub-blocks into its metadata by copying the whole so far for each 255-byte block
     * (quadratic), so a 16x16 GIF carrying a 4 MiB comment took 20 s and 8 MiB 42 s of a worker's
     * core (found by GateHoldsDecodersTest). None of them changes the pixels; graphic control
     * extensions (the transparent index) are kept. A file the walk cannot follow is returned as it is.
     */
    static byte[] withoutExtensions(byte[] d) {
        if (d.length < 13) return d;
        int at = 13 + ((d[10] & 0x80) != 0 ? 3 << ((d[10] & 7) + 1) : 0);
        if (at > d.length) return d;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(d.length);
        out.write(d, 0, at);
        while (at < d.length) {
            int block = d[at] & 0xFF;
            if (block == 0x21 && at + 1 < d.length) {
                int end = subBlocks(d, at + 2);
                if (end < 0) break;
                if ((d[at + 1] & 0xFF) == 0xF9) out.write(d, at, end - at);
                at = end;
            } else {
                break; // an image, the trailer or anything else: the rest as it is
            }
        }
        out.write(d, at, d.length - at);
        return out.toByteArray();
    }

    private static int subBlocks(byte[] d, int at) {
        while (at < d.length) {
            int n = d[at] & 0xFF;
            if (n == 0) return at + 1;
            at += n + 1;
        }
        return -1;
    }

    private static Node find(Node n, String name) {
        if (n == null) return null;
        if (name.equals(n.getNodeName())) return n;
        for (Node c = n.getFirstChild(); c != null; c = c.getNextSibling()) {
            Node f = find(c, name);
            if (f != null) return f;
        }
        return null;
    }
}
