package io.numaiscsi.rbd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;

/**
 * One connected librados client (rados_t). Its pools ({@link #openPool}) and the images and objects opened in them
 * must be closed before it is.
 */
public final class RadosConnection implements AutoCloseable {
    private static LibRados rados;

    private final CephClient client;
    private long cluster;

    private RadosConnection(CephClient client, long cluster) {
        this.client = client;
        this.cluster = cluster;
    }

    static synchronized LibRados rados() {
        if (rados == null) {
            rados = LibRados.load();
        }
        return rados;
    }

    /**
     * Connects as {@code client}, failing within its timeout when no monitor answers.
     *
     * @throws IOException naming the cause: a missing ceph.conf or keyring, a key the cluster refuses, no monitor
     */
    public static RadosConnection connect(CephClient client) throws IOException {
        if (!Files.isReadable(client.cephConf())) {
            throw new IOException("ceph-conf " + client.cephConf() + " is missing or not readable");
        }
        if (client.keyring() != null && !Files.isReadable(client.keyring())) {
            throw new IOException("keyring " + client.keyring() + " is missing or not readable");
        }
        LibRados r = rados();
        long[] handle = new long[1];
        int rc = r.rados_create2(handle, "ceph", client.entity(), 0);
        if (rc < 0) {
            throw new IOException("rados_create2 for " + client.entity() + " failed: " + Errno.name(rc));
        }
        long cluster = handle[0];
        try {
            check(r.rados_conf_read_file(cluster, client.cephConf().toString()), "reading " + client.cephConf());
            if (client.keyring() != null) {
                set(r, cluster, "keyring", client.keyring().toString());
            }
            String seconds = Long.toString(Math.max(1, client.timeout().toSeconds()));
            set(r, cluster, "client_mount_timeout", seconds);
            set(r, cluster, "rados_mon_op_timeout", seconds);
            set(r, cluster, "rados_osd_op_timeout", seconds);
            // librbd's own write-back cache would acknowledge writes the OSDs do not hold yet, and a second gateway on
            // the same image would not see them: every acknowledged write goes to the OSDs (README, "RBD").
            set(r, cluster, "rbd_cache", "false");
            // discard of a part of an object zeroes it rather than skipping it, so an unmapped range always reads as
            // zeros
            set(r, cluster, "rbd_skip_partial_discard", "false");
            // a gateway that breaks a peer's exclusive lock fences it at the OSDs first (README, "Fencing")
            set(r, cluster, "rbd_blocklist_on_break_lock", "true");
            rc = r.rados_connect(cluster);
            if (rc < 0) {
                throw new IOException(connectError(client, rc));
            }
        } catch (IOException | RuntimeException e) {
            r.rados_shutdown(cluster);
            throw e;
        }
        return new RadosConnection(client, cluster);
    }

    private static String connectError(CephClient client, int rc) {
        int e = -rc;
        String who = "cannot connect to the Ceph cluster of " + client.cephConf() + " as " + client.entity() + ": ";
        if (e == Errno.EACCES || e == Errno.EPERM) {
            return who + "the cluster refused the key (" + Errno.name(rc) + "; check rbd-user and keyring)";
        }
        if (e == Errno.ETIMEDOUT) {
            return who + "no monitor answered within " + client.timeout().toSeconds() + " s (" + Errno.name(rc)
                    + "; check mon host in ceph.conf and that the cluster runs)";
        }
        if (e == Errno.ENOENT) {
            return who + "no key for " + client.entity() + " (" + Errno.name(rc) + "; check rbd-user and keyring)";
        }
        return who + Errno.name(rc);
    }

    private static void set(LibRados r, long cluster, String option, String value) throws IOException {
        check(r.rados_conf_set(cluster, option, value), "setting " + option + " = " + value);
    }

    private static void check(int rc, String what) throws IOException {
        if (rc < 0) {
            throw new IOException(what + " failed: " + Errno.name(rc));
        }
    }

    public CephClient client() {
        return client;
    }

    /**
     * An I/O context (rados_ioctx_t) on {@code pool}, destroyed with {@link LibRados#rados_ioctx_destroy}.
     *
     * @throws IOException the pool does not exist or cannot be used
     */
    long openPool(String pool) throws IOException {
        long[] io = new long[1];
        int rc = rados().rados_ioctx_create(requireOpen(), pool, io);
        if (rc < 0) {
            throw new IOException(
                    rc == -Errno.ENOENT
                            ? "pool " + pool + " does not exist in the cluster of " + client.cephConf()
                            : "cannot open pool " + pool + ": " + Errno.name(rc));
        }
        return io[0];
    }

    /** The cluster's fsid (a UUID): which cluster this client reached, whatever ceph.conf calls it. */
    public String fsid() throws IOException {
        byte[] buf = new byte[64];
        int n = rados().rados_cluster_fsid(requireOpen(), buf, buf.length);
        if (n < 0) {
            throw new IOException("cannot read the cluster's fsid: " + Errno.name(n));
        }
        int end = 0;
        while (end < n && buf[end] != 0) {
            end++;
        }
        return new String(buf, 0, end, StandardCharsets.US_ASCII);
    }

    /** This client's global id ({@code client.N}'s N): the id a notify reply names watchers by. */
    public long instanceId() throws IOException {
        return rados().rados_get_instance_id(requireOpen());
    }

    /** This client's address as Ceph's blocklist takes it, e.g. {@code 127.0.0.1:0/3576370277}. */
    public String address() throws IOException {
        LibRados r = rados();
        long[] out = new long[1];
        int rc = r.rados_getaddrs(requireOpen(), out);
        if (rc < 0 || out[0] == 0) {
            throw new IOException("cannot read this Ceph client's address: " + Errno.name(rc));
        }
        try {
            String addrs = jnr.ffi.Runtime.getRuntime(r)
                    .getMemoryManager()
                    .newPointer(out[0])
                    .getString(0);
            return addrs.startsWith("[") && addrs.endsWith("]") ? addrs.substring(1, addrs.length() - 1) : addrs;
        } finally {
            r.rados_buffer_free(out[0]);
        }
    }

    /**
     * Fences the client at {@code clientAddress}: the OSDs refuse its operations from the OSD map epoch this creates on,
     * which this client holds when this returns. Needs the monitor capability {@code profile rbd} (or {@code allow
     * command "osd blocklist"}).
     *
     * @throws IOException the monitors refused (a missing capability names the fix) or could not be reached
     */
    public void blocklist(String clientAddress, Duration expire) throws IOException {
        LibRados r = rados();
        long c = requireOpen();
        int rc = r.rados_blocklist_add(c, clientAddress, (int) Math.min(Integer.MAX_VALUE, expire.toSeconds()));
        if (rc == -Errno.EACCES || rc == -Errno.EPERM) {
            throw new IOException(
                    "the Ceph user " + client.entity() + " may not blocklist other clients (" + Errno.name(rc)
                            + "); give it the monitor capability 'profile rbd': ceph auth caps " + client.entity()
                            + " mon 'profile rbd' osd 'profile rbd'");
        }
        if (rc < 0) {
            throw new IOException("cannot blocklist Ceph client " + clientAddress + ": " + Errno.name(rc));
        }
        rc = r.rados_wait_for_latest_osdmap(c);
        if (rc < 0) {
            throw new IOException("blocklisted Ceph client " + clientAddress + ", but could not fetch the new OSD map: "
                    + Errno.name(rc));
        }
    }

    /** Waits for the watch callbacks already queued (rados_watch_flush), so none runs after its watch is gone. */
    void watchFlush() {
        long c = cluster;
        if (c != 0) {
            rados().rados_watch_flush(c);
        }
    }

    private synchronized long requireOpen() throws IOException {
        if (cluster == 0) {
            throw new IOException("the connection to " + client.cephConf() + " is closed");
        }
        return cluster;
    }

    @Override
    public synchronized void close() {
        if (cluster != 0) {
            rados().rados_shutdown(cluster);
            cluster = 0;
        }
    }
}
