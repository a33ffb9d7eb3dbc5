package io.numaiscsi.rbd;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;

/**
 * Small RADOS objects read with their version and replaced only if nobody changed them since (compare-and-swap):
 * state several gateways share, such as persistent reservations. One object's whole content is read and written at
 * once; at most {@link #MAX_BYTES}.
 */
public final class RadosObject implements AutoCloseable {
    public static final int MAX_BYTES = 1 << 20;
    /** The version of an object that does not exist: {@link #replace} with it creates the object, exclusively. */
    public static final long ABSENT = 0;

    private static final int EOVERFLOW = 75;

    /** An object's bytes and the version they had; {@code version} {@link #ABSENT} and no bytes when it is missing. */
    public record Versioned(byte[] data, long version) {
        public Versioned {
            Objects.requireNonNull(data, "data");
        }
    }

    private final String pool;
    private final RadosConnection connection;
    /** Read without the monitor by watch, notify and their callbacks: a notify waits for acks, which must not block. */
    private volatile long ioctx;

    private RadosObject(RadosConnection connection, String pool, long ioctx) {
        this.connection = connection;
        this.pool = pool;
        this.ioctx = ioctx;
    }

    /** Objects in {@code pool} through {@code connection}, which must stay open until this is closed. */
    public static RadosObject open(RadosConnection connection, String pool) throws IOException {
        return new RadosObject(connection, pool, connection.openPool(pool));
    }

    /** The object's bytes and version, or empty bytes and {@link #ABSENT} when it does not exist. */
    public synchronized Versioned read(String oid) throws IOException {
        requireOpen();
        LibRados r = RadosConnection.rados();
        Pointer buf = Memory.allocateDirect(jnr.ffi.Runtime.getRuntime(r), MAX_BYTES + 1);
        int rc = r.rados_read(ioctx, oid, buf, MAX_BYTES + 1, 0);
        if (rc == -Errno.ENOENT) {
            return new Versioned(new byte[0], ABSENT);
        }
        if (rc < 0) {
            throw failure(rc, "cannot read RADOS object " + pool + "/" + oid);
        }
        if (rc > MAX_BYTES) {
            throw new IOException("RADOS object " + pool + "/" + oid + " is larger than " + MAX_BYTES + " bytes");
        }
        long version = r.rados_get_last_version(ioctx);
        byte[] data = new byte[rc];
        buf.get(0, data, 0, rc);
        return new Versioned(data, version);
    }

    /**
     * Replaces the object's content with {@code data} if its version is still {@code expectedVersion} (creates it if
     * that is {@link #ABSENT} and it still does not exist). Exactly one of several writers racing from the same version
     * wins.
     *
     * @return true when written; false when another writer changed (or created, or removed) it first
     * @throws IOException the cluster failed the write for another reason
     */
    public boolean replace(String oid, byte[] data, long expectedVersion) throws IOException {
        return write(oid, data, expectedVersion) != LOST;
    }

    /** What {@link #write} returns when another writer changed the object first. */
    public static final long LOST = -1;

    /**
     * {@link #replace}, returning the object's version after the write ({@link #read} gives the same), or {@link #LOST}.
     */
    public synchronized long write(String oid, byte[] data, long expectedVersion) throws IOException {
        requireOpen();
        if (data.length > MAX_BYTES) {
            throw new IllegalArgumentException(data.length + " bytes is more than " + MAX_BYTES);
        }
        LibRados r = RadosConnection.rados();
        Pointer buf = Memory.allocateDirect(jnr.ffi.Runtime.getRuntime(r), Math.max(1, data.length));
        buf.put(0, data, 0, data.length);
        long op = r.rados_create_write_op();
        if (op == 0) {
            throw new IOException("rados_create_write_op failed");
        }
        try {
            if (expectedVersion == ABSENT) {
                r.rados_write_op_create(op, 1, null);
            } else {
                r.rados_write_op_assert_version(op, expectedVersion);
            }
            r.rados_write_op_write_full(op, buf, data.length);
            int rc = r.rados_write_op_operate(op, ioctx, oid, 0, 0);
            if (rc == 0) {
                return r.rados_get_last_version(ioctx);
            }
            int e = -rc;
            // EEXIST: created by another; ERANGE / EOVERFLOW: the version moved on; ENOENT: removed; ECANCELED: failed
            // assert
            if (e == Errno.EEXIST || e == Errno.ERANGE || e == EOVERFLOW || e == Errno.ENOENT || e == Errno.ECANCELED) {
                return LOST;
            }
            throw failure(rc, "cannot write RADOS object " + pool + "/" + oid);
        } finally {
            r.rados_release_write_op(op);
        }
    }

    /** What a watch of {@link #watch} is told; called on a librados thread, so it must not block. */
    public interface Watcher {
        /**
         * A notify with {@code payload} arrived from the client whose global id is {@code notifierId}. The notifier waits
         * until {@code acknowledge} runs (once, on any thread; it may run after this returns).
         */
        void notified(byte[] payload, long notifierId, Runnable acknowledge);

        /** The watch is broken ({@code errno}: the negative error); {@link #unwatch} it and watch again. */
        void broken(int errno);
    }

    /** The callbacks of each watch, referenced here so the native stubs outlive the watch. */
    private final ConcurrentHashMap<Long, Object[]> watches = new ConcurrentHashMap<>();

    /**
     * Watches object {@code oid} (which must exist): every {@link #notify} on it reaches {@code watcher}, and the notifier
     * learns this watcher has seen it when the watcher acknowledges.
     *
     * @return the watch's cookie, for {@link #unwatch} and {@link #watchCheck}
     */
    public long watch(String oid, Watcher watcher) throws IOException {
        LibRados r = RadosConnection.rados();
        long io = requireOpen();
        LibRados.WatchCallback onNotify = (arg, notifyId, cookie, notifierId, data, length) -> {
            byte[] payload = new byte[(int) Math.min(length, MAX_BYTES)];
            if (payload.length > 0) {
                data.get(0, payload, 0, payload.length);
            }
            AtomicBoolean sent = new AtomicBoolean();
            Runnable acknowledge = () -> {
                if (sent.compareAndSet(false, true) && ioctx == io) {
                    r.rados_notify_ack(io, oid, notifyId, cookie, null, 0);
                }
            };
            try {
                watcher.notified(payload, notifierId, acknowledge);
            } catch (RuntimeException e) {
                acknowledge.run();
                throw e;
            }
        };
        LibRados.WatchErrorCallback onError = (arg, cookie, err) -> watcher.broken(err);
        long[] cookie = new long[1];
        int rc = r.rados_watch2(io, oid, cookie, onNotify, onError, null);
        if (rc < 0) {
            throw failure(rc, "cannot watch RADOS object " + pool + "/" + oid);
        }
        watches.put(cookie[0], new Object[] {onNotify, onError});
        return cookie[0];
    }

    /** Ends a watch; no callback of it runs after this returns. */
    public void unwatch(long cookie) {
        long io = ioctx;
        if (io != 0) {
            LibRados r = RadosConnection.rados();
            r.rados_unwatch2(io, cookie);
        }
        watches.remove(cookie);
    }

    /** Milliseconds since the OSD last confirmed the watch, or the negative error that broke it. */
    public int watchCheck(long cookie) {
        long io = ioctx;
        return io == 0 ? -Errno.ENOTCONN : RadosConnection.rados().rados_watch_check(io, cookie);
    }

    /**
     * How a {@link #notify} ended: whether every watcher acknowledged within the timeout, and the global ids of those
     * that did not (their watches may outlive them: a killed client's lingers until the OSD drops it).
     */
    public record NotifyOutcome(boolean complete, List<Long> missed) {
        public NotifyOutcome {
            missed = List.copyOf(missed);
        }
    }

    /**
     * Sends {@code payload} to every watcher of {@code oid} and waits up to {@code timeout} for their acks.
     *
     * @throws IOException the notify could not be sent
     */
    public NotifyOutcome notify(String oid, byte[] payload, Duration timeout) throws IOException {
        LibRados r = RadosConnection.rados();
        long io = requireOpen();
        Pointer buf = Memory.allocateDirect(jnr.ffi.Runtime.getRuntime(r), Math.max(1, payload.length));
        buf.put(0, payload, 0, payload.length);
        long[] reply = new long[1];
        long[] replyLength = new long[1];
        int rc = r.rados_notify2(io, oid, buf, payload.length, timeout.toMillis(), reply, replyLength);
        List<Long> missed = List.of();
        if (reply[0] != 0) {
            try {
                byte[] bytes = new byte[(int) Math.min(replyLength[0], MAX_BYTES)];
                jnr.ffi.Runtime.getRuntime(r)
                        .getMemoryManager()
                        .newPointer(reply[0])
                        .get(0, bytes, 0, bytes.length);
                missed = NotifyReply.missedWatchers(bytes);
            } finally {
                r.rados_buffer_free(reply[0]);
            }
        }
        if (rc == -Errno.ETIMEDOUT) {
            return new NotifyOutcome(false, missed);
        }
        if (rc < 0) {
            throw failure(rc, "cannot notify the watchers of RADOS object " + pool + "/" + oid);
        }
        return new NotifyOutcome(true, List.of());
    }

    /** Sets the extended attribute {@code name} of object {@code oid} (which must exist) to {@code value}. */
    public void setAttribute(String oid, String name, byte[] value) throws IOException {
        int rc = RadosConnection.rados().rados_setxattr(requireOpen(), oid, name, value, value.length);
        if (rc < 0) {
            throw failure(rc, "cannot set attribute " + name + " of RADOS object " + pool + "/" + oid);
        }
    }

    /** The extended attribute {@code name} of object {@code oid} (at most 4 KiB), or null when it has none. */
    public byte[] attribute(String oid, String name) throws IOException {
        byte[] buf = new byte[4096];
        int rc = RadosConnection.rados().rados_getxattr(requireOpen(), oid, name, buf, buf.length);
        if (rc == -Errno.ENODATA || rc == -Errno.ENOENT) {
            return null;
        }
        if (rc < 0) {
            throw failure(rc, "cannot read attribute " + name + " of RADOS object " + pool + "/" + oid);
        }
        return Arrays.copyOf(buf, rc);
    }

    /** The exception for a failed call: {@link FencedException} when the cluster refuses this client. */
    private IOException failure(int rc, String what) {
        String message = what + ": " + Errno.name(rc);
        return rc == -Errno.ESHUTDOWN
                ? new FencedException(message + " (this client is blocklisted)")
                : new IOException(message);
    }

    private long requireOpen() throws IOException {
        long io = ioctx;
        if (io == 0) {
            throw new IOException("RADOS objects of pool " + pool + ": closed");
        }
        return io;
    }

    @Override
    public synchronized void close() {
        if (ioctx != 0) {
            LibRados r = RadosConnection.rados();
            for (Long cookie : watches.keySet()) {
                r.rados_unwatch2(ioctx, cookie);
            }
            watches.clear();
            connection.watchFlush();
            r.rados_ioctx_destroy(ioctx);
            ioctx = 0;
        }
    }
}
