package io.numaiscsi.rbd;

import jnr.ffi.annotations.Delegate;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;

/**
 * The librbd calls this module uses ({@code /usr/include/rbd/librbd.h}, Ceph 16); handles and buffers as native
 * addresses in {@code long}s. Public only because jnr-ffi generates the implementation in another class loader.
 */
public interface LibRbd {
    /** The runtime library of Debian's librbd1. */
    String LIBRARY = "librbd.so.1";
    /** librados' LIBRADOS_OP_FLAG_FADVISE_FUA, an op flag of rbd_aio_write2. */
    int OP_FLAG_FADVISE_FUA = 0x80;

    /** rbd_callback_t: called on a librbd thread when an aio request completes. */
    interface Completion {
        @Delegate
        void complete(long completion, long arg);
    }

    int rbd_open(long ioctx, String name, @Out long[] image, String snapName);

    int rbd_close(long image);

    /** Opens an image without ever taking its lock (to look at it). */
    int rbd_open_read_only(long ioctx, String name, @Out long[] image, String snapName);

    int rbd_get_size(long image, @Out long[] size);

    /**
     * A completion calling {@code callback} (the native address of a {@link Completion} stub) with {@code arg}, written
     * to the 8 bytes at {@code completionOut}: addresses, so the call converts and allocates nothing.
     */
    int rbd_aio_create_completion(long arg, long callback, long completionOut);

    long rbd_aio_get_return_value(long completion);

    void rbd_aio_release(long completion);

    int rbd_aio_read(long image, long off, long len, long buf, long completion);

    int rbd_aio_write2(long image, long off, long len, long buf, long completion, int opFlags);

    int rbd_aio_discard(long image, long off, long len, long completion);

    int rbd_aio_write_zeroes(long image, long off, long len, long completion, int zeroFlags, int opFlags);

    int rbd_aio_flush(long image, long completion);

    /** rbd_lock_mode_t RBD_LOCK_MODE_EXCLUSIVE. */
    int LOCK_MODE_EXCLUSIVE = 0;
    /** RBD_FEATURE_EXCLUSIVE_LOCK of rbd/features.h. */
    long FEATURE_EXCLUSIVE_LOCK = 1L << 2;

    int rbd_get_features(long image, @Out long[] features);

    /** Takes the exclusive lock and turns librbd's automatic lock transitions off for this image handle. */
    int rbd_lock_acquire(long image, int mode);

    int rbd_lock_release(long image);

    /**
     * The lock's owners (their client addresses, C strings in {@code owners}, freed with
     * {@link #rbd_lock_get_owners_cleanup}); {@code count} holds the array's size in and the number of owners out.
     */
    int rbd_lock_get_owners(long image, @Out int[] mode, @Out long[] owners, long[] count);

    void rbd_lock_get_owners_cleanup(@In long[] owners, long count);

    /** Breaks {@code owner}'s lock; with rbd_blocklist_on_break_lock the owner's client is blocklisted first. */
    int rbd_lock_break(long image, int mode, String owner);

    int rbd_is_exclusive_lock_owner(long image, @Out int[] isOwner);

    /** {@code length} holds the buffer's size in and the value's length (with its NUL) out. */
    int rbd_metadata_get(long image, String key, @Out byte[] value, long[] length);

    int rbd_metadata_set(long image, String key, String value);

    static LibRbd load() {
        return NativeLibraries.load(LibRbd.class, LIBRARY, "librbd1");
    }
}
