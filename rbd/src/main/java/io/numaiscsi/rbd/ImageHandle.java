package io.numaiscsi.rbd;

import java.io.IOException;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RBD image opened through one librados client of its own: the client, the pool's I/O context and the image,
 * opened and closed together. A gateway that was fenced (its client blocklisted) replaces the whole handle: the OSDs
 * refuse the old client for good, a new client is a new identity.
 */
final class ImageHandle {
    private static final Logger LOG = LoggerFactory.getLogger(ImageHandle.class);

    final RadosConnection connection;
    final long ioctx;
    final long image;
    final long size;
    /** The client's address, as a peer blocklists it. */
    final String address;
    /** Writes may go through this handle: not exclusive, or it holds the image's exclusive lock. */
    volatile boolean writable;

    private ImageHandle(RadosConnection connection, long ioctx, long image, long size, String address) {
        this.connection = connection;
        this.ioctx = ioctx;
        this.image = image;
        this.size = size;
        this.address = address;
    }

    /**
     * Connects as {@code client} and opens {@code pool/imageName}.
     *
     * @throws IOException naming the cause: the cluster cannot be reached or refuses the key, the pool or the image does
     *                     not exist
     */
    static ImageHandle open(CephClient client, String pool, String imageName) throws IOException {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(imageName, "imageName");
        String name = pool + "/" + imageName;
        RadosConnection connection = RadosConnection.connect(client);
        long ioctx = 0;
        long image = 0;
        try {
            ioctx = connection.openPool(pool);
            LibRbd r = RbdBlockDevice.rbd();
            long[] out = new long[1];
            int rc = r.rbd_open(ioctx, imageName, out, null);
            if (rc < 0) {
                throw new IOException(
                        rc == -Errno.ENOENT
                                ? "RBD image " + name + " does not exist (create it with rbd create)"
                                : "cannot open RBD image " + name + ": " + Errno.name(rc));
            }
            image = out[0];
            rc = r.rbd_get_size(image, out);
            if (rc < 0) {
                throw new IOException("cannot read the size of RBD image " + name + ": " + Errno.name(rc));
            }
            return new ImageHandle(connection, ioctx, image, out[0], connection.address());
        } catch (IOException | RuntimeException e) {
            if (image != 0) {
                RbdBlockDevice.rbd().rbd_close(image);
            }
            if (ioctx != 0) {
                RadosConnection.rados().rados_ioctx_destroy(ioctx);
            }
            connection.close();
            throw e;
        }
    }

    /** Whether the image has the exclusive-lock feature a gateway pair fences with. */
    boolean hasExclusiveLock() throws IOException {
        long[] features = new long[1];
        int rc = RbdBlockDevice.rbd().rbd_get_features(image, features);
        if (rc < 0) {
            throw new IOException("cannot read the features of the RBD image: " + Errno.name(rc));
        }
        return (features[0] & LibRbd.FEATURE_EXCLUSIVE_LOCK) != 0;
    }

    private boolean closed;

    /** Closes the image, the I/O context and the client (once); a fenced client's close only logs what failed. */
    synchronized void close() {
        writable = false;
        if (closed) {
            return;
        }
        closed = true;
        int rc = RbdBlockDevice.rbd().rbd_close(image);
        if (rc < 0 && rc != -Errno.ESHUTDOWN) {
            LOG.warn("closing the RBD image of client {}: {}", address, Errno.name(rc));
        }
        RadosConnection.rados().rados_ioctx_destroy(ioctx);
        connection.close();
    }
}
