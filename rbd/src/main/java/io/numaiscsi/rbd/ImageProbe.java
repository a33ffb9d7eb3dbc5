package io.numaiscsi.rbd;

import java.io.IOException;

/** Looks at an RBD image without writing it or taking its lock: whether it exists, and its size. */
public final class ImageProbe {
    private ImageProbe() {}

    /**
     * The size in bytes of {@code pool/imageName}, seen through {@code connection}.
     *
     * @throws IOException naming what is wrong: the pool or the image does not exist, or the cluster refused
     */
    public static long size(RadosConnection connection, String pool, String imageName) throws IOException {
        String name = pool + "/" + imageName;
        long ioctx = connection.openPool(pool);
        try {
            LibRbd r = RbdBlockDevice.rbd();
            long[] out = new long[1];
            int rc = r.rbd_open_read_only(ioctx, imageName, out, null);
            if (rc < 0) {
                throw new IOException(
                        rc == -Errno.ENOENT
                                ? "RBD image " + name + " does not exist (create it with rbd create)"
                                : "cannot open RBD image " + name + ": " + Errno.name(rc));
            }
            long image = out[0];
            try {
                rc = r.rbd_get_size(image, out);
                if (rc < 0) {
                    throw new IOException("cannot read the size of RBD image " + name + ": " + Errno.name(rc));
                }
                return out[0];
            } finally {
                r.rbd_close(image);
            }
        } finally {
            RadosConnection.rados().rados_ioctx_destroy(ioctx);
        }
    }
}
