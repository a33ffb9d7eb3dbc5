package io.numaiscsi.rbd;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.Out;

/**
 * The librados calls this module uses ({@code /usr/include/rados/librados.h}, Ceph 16). Handles (cluster, ioctx,
 * write op) are passed as native addresses in {@code long}s, so no {@link Pointer} object is made per call. Public only
 * because jnr-ffi generates the implementation in another class loader.
 */
public interface LibRados {
    /** The runtime library of Debian's librados2 (the unversioned name exists only with the -dev package). */
    String LIBRARY = "librados.so.2";

    int rados_create2(@Out long[] cluster, String clusterName, String name, long flags);

    int rados_conf_read_file(long cluster, String path);

    int rados_conf_set(long cluster, String option, String value);

    int rados_connect(long cluster);

    void rados_shutdown(long cluster);

    int rados_ioctx_create(long cluster, String pool, @Out long[] ioctx);

    void rados_ioctx_destroy(long ioctx);

    /** Bytes read or -errno. */
    int rados_read(long ioctx, String oid, Pointer buf, long len, long off);

    /** The version of the object last read or written through {@code ioctx}. */
    long rados_get_last_version(long ioctx);

    long rados_create_write_op();

    void rados_release_write_op(long op);

    void rados_write_op_assert_version(long op, long version);

    void rados_write_op_create(long op, int exclusive, String category);

    void rados_write_op_write_full(long op, Pointer buffer, long len);

    /** 0 or -errno ({@code mtime} 0: now). */
    int rados_write_op_operate(long op, long ioctx, String oid, long mtime, int flags);

    /** {@code rados_watchcb2_t}: a notify arrived on a watched object; ack it with {@link #rados_notify_ack}. */
    interface WatchCallback {
        @jnr.ffi.annotations.Delegate
        void call(Pointer arg, long notifyId, long cookie, long notifierId, Pointer data, long dataLength);
    }

    /** {@code rados_watcherrcb_t}: the watch {@code cookie} is broken ({@code err} -errno); it must be made again. */
    interface WatchErrorCallback {
        @jnr.ffi.annotations.Delegate
        void call(Pointer arg, long cookie, int err);
    }

    int rados_watch2(
            long ioctx, String oid, @Out long[] cookie, WatchCallback watch, WatchErrorCallback error, Pointer arg);

    int rados_unwatch2(long ioctx, long cookie);

    /** Milliseconds since the watch was last confirmed by the OSD, or -errno when it is broken. */
    int rados_watch_check(long ioctx, long cookie);

    /** Waits until every watch callback already queued has run (after unwatch, before freeing what they use). */
    int rados_watch_flush(long cluster);

    int rados_notify_ack(long ioctx, String oid, long notifyId, long cookie, Pointer buf, int bufLength);

    /**
     * Notifies the object's watchers and waits for their acks: 0 when all acked within {@code timeoutMs}, -ETIMEDOUT
     * when one did not. {@code reply} receives a buffer to release with {@link #rados_buffer_free}.
     */
    int rados_notify2(
            long ioctx,
            String oid,
            Pointer buf,
            int bufLength,
            long timeoutMs,
            @Out long[] reply,
            @Out long[] replyLength);

    void rados_buffer_free(long buffer);

    /** The cluster's fsid as text into {@code buf}; its length, or -ERANGE when {@code buf} is too small. */
    int rados_cluster_fsid(long cluster, @Out byte[] buf, long length);

    /** This client's global id: the {@code N} of {@code client.N}, the "gid" a notify reply names watchers by. */
    long rados_get_instance_id(long cluster);

    /** This client's addresses as a C string ({@code *addrs}, freed with {@link #rados_buffer_free}). */
    int rados_getaddrs(long cluster, @Out long[] addrs);

    /** Makes the OSDs refuse every operation of the client at {@code clientAddress} ({@code expireSeconds} 0: default). */
    int rados_blocklist_add(long cluster, String clientAddress, int expireSeconds);

    /** Waits until this client has the newest OSD map (so a blocklist just added is in its next operations' epoch). */
    int rados_wait_for_latest_osdmap(long cluster);

    int rados_setxattr(long ioctx, String oid, String name, byte[] buf, long length);

    /** Bytes of the attribute copied into {@code buf}, or -errno (-ENODATA: no such attribute). */
    int rados_getxattr(long ioctx, String oid, String name, @Out byte[] buf, long length);

    static LibRados load() {
        return NativeLibraries.load(LibRados.class, LIBRARY, "librados2");
    }
}
