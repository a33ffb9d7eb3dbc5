package io.numaiscsi.rbd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * librbd's managed exclusive lock of one image handle, with errors in words: who holds it, take it, break it (which
 * blocklists the holder's client first: {@code rbd_blocklist_on_break_lock}), give it up; and the image metadata
 * that says which gateway (target port group) the holder is.
 */
final class ImageLock {
    /** Image metadata: "GROUP ADDRESS" of the gateway that last took the lock. */
    static final String OWNER_KEY = "numa-iscsi.owner";

    private static final int MAX_OWNERS = 4;

    private ImageLock() {}

    /** The lock holder's client address, or null when nobody holds it. */
    static String owner(ImageHandle h) throws IOException {
        LibRbd r = RbdBlockDevice.rbd();
        int[] mode = new int[1];
        long[] owners = new long[MAX_OWNERS];
        long[] count = {MAX_OWNERS};
        int rc = r.rbd_lock_get_owners(h.image, mode, owners, count);
        if (rc == -Errno.ENOENT) {
            return null;
        }
        check(rc, h, "read who holds the image's lock");
        if (count[0] == 0) {
            return null;
        }
        try {
            return jnr.ffi.Runtime.getRuntime(r)
                    .getMemoryManager()
                    .newPointer(owners[0])
                    .getString(0);
        } finally {
            r.rbd_lock_get_owners_cleanup(owners, count[0]);
        }
    }

    /** 0 when taken; -EROFS or -EBUSY when another client holds it. */
    static int acquire(ImageHandle h) throws IOException {
        int rc = RbdBlockDevice.rbd().rbd_lock_acquire(h.image, LibRbd.LOCK_MODE_EXCLUSIVE);
        if (rc == 0 || rc == -Errno.EROFS || rc == -Errno.EBUSY) {
            return rc;
        }
        check(rc, h, "take the image's lock");
        return rc;
    }

    /** Blocklists {@code holder}'s client, then removes its lock; a lock already gone is not an error. */
    static void breakLock(ImageHandle h, String holder) throws IOException {
        int rc = RbdBlockDevice.rbd().rbd_lock_break(h.image, LibRbd.LOCK_MODE_EXCLUSIVE, holder);
        if (rc == -Errno.ENOENT) {
            return;
        }
        if (rc == -Errno.EACCES || rc == -Errno.EPERM) {
            throw new IOException("the Ceph user " + h.connection.client().entity() + " may not blocklist the gateway"
                    + " holding the image (" + Errno.name(rc)
                    + "); give it the monitor capability 'profile rbd': ceph auth caps "
                    + h.connection.client().entity() + " mon 'profile rbd' osd 'profile rbd'");
        }
        check(rc, h, "break the lock of " + holder);
    }

    static void release(ImageHandle h) throws IOException {
        int rc = RbdBlockDevice.rbd().rbd_lock_release(h.image);
        if (rc == -Errno.ENOENT || rc == -Errno.EINVAL) {
            return; // not held
        }
        check(rc, h, "release the image's lock");
    }

    /** Whether this handle's client holds the lock, as librbd knows it (no round trip). */
    static boolean isOwner(ImageHandle h) throws IOException {
        int[] owner = new int[1];
        check(RbdBlockDevice.rbd().rbd_is_exclusive_lock_owner(h.image, owner), h, "check the image's lock");
        return owner[0] != 0;
    }

    /** Records that group {@code group} holds the lock through this handle's client. */
    static void recordOwner(ImageHandle h, int group) throws IOException {
        check(
                RbdBlockDevice.rbd().rbd_metadata_set(h.image, OWNER_KEY, group + " " + h.address),
                h,
                "record the lock holder's group");
    }

    /**
     * The group of the gateway that holds the lock: what the metadata names, when the client it names still holds it;
     * 0 when nobody holds the lock or the record is stale.
     */
    static int ownerGroup(ImageHandle h) throws IOException {
        String holder = owner(h);
        if (holder == null) {
            return 0;
        }
        byte[] value = new byte[256];
        long[] length = {value.length};
        int rc = RbdBlockDevice.rbd().rbd_metadata_get(h.image, OWNER_KEY, value, length);
        if (rc == -Errno.ENOENT) {
            return 0;
        }
        check(rc, h, "read the lock holder's group");
        int n = 0; // a C string: librbd leaves the length as it was on success
        while (n < value.length && value[n] != 0) {
            n++;
        }
        String[] parts = new String(value, 0, n, StandardCharsets.US_ASCII).split(" ", 2);
        if (parts.length != 2 || !parts[1].equals(holder)) {
            return 0;
        }
        try {
            return Integer.parseInt(parts[0]);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static void check(int rc, ImageHandle h, String what) throws IOException {
        if (rc == -Errno.ESHUTDOWN) {
            throw new FencedException("client " + h.address + " is blocklisted (could not " + what + ")");
        }
        if (rc < 0) {
            throw new IOException("could not " + what + ": " + Errno.name(rc));
        }
    }
}
