package io.numaiscsi.daemon.cluster;

import io.numaiscsi.rbd.CephClient;
import io.numaiscsi.rbd.RadosConnection;
import io.numaiscsi.rbd.RadosObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link VersionedObject} in RADOS, shared by gateways on any hosts: the state is object {@code NAME} (read with its
 * version, replaced with the version asserted); {@code NAME.watch} is an empty object every gateway watches. A won
 * replace notifies the watchers with the new version and waits for their acks, and a watcher records the version
 * before it acks, so when replace returns every live peer's {@link #knownVersion} (a volatile load) shows it.
 *
 * <p>While this gateway's watch is broken (the OSD dropped it, the cluster is cut off) a notice could be missed, so
 * {@link #knownVersion} answers {@link #UNSURE}, a version no state has: the unit reads the object before every
 * decision until the watch is made again (checked every second).
 */
public final class RadosVersionedObject implements VersionedObject, AutoCloseable {
    /** Never a version: makes the unit read the object before each decision while the watch is broken. */
    static final long UNSURE = -2;
    /** How long a replace waits for the peers' acks (a dead peer's watch lingers until the OSD drops it, 30 s). */
    static final Duration NOTIFY_TIMEOUT = Duration.ofSeconds(5);
    private static final Logger LOG = LoggerFactory.getLogger(RadosVersionedObject.class);

    private final RadosConnection connection;
    private final RadosObject objects;
    private final String oid;
    private final String watchOid;
    private final String name;
    private final AtomicLong known = new AtomicLong();
    private final ScheduledExecutorService checker;
    private volatile boolean watching;
    private long cookie;

    private RadosVersionedObject(RadosConnection connection, RadosObject objects, String pool, String oid) {
        this.connection = connection;
        this.objects = objects;
        this.oid = oid;
        this.watchOid = oid + ".watch";
        this.name = "RADOS object " + pool + "/" + oid;
        this.checker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "watch " + oid);
            t.setDaemon(true);
            return t;
        });
    }

    /** Connects as {@code client}, watches {@code oid}'s companion and reads its version. */
    public static RadosVersionedObject open(CephClient client, String pool, String oid) throws IOException {
        RadosConnection c = RadosConnection.connect(client);
        RadosVersionedObject o = null;
        try {
            o = new RadosVersionedObject(c, RadosObject.open(c, pool), pool, oid);
            o.objects.replace(o.watchOid, new byte[0], RadosObject.ABSENT); // created once; lost: it exists
            o.watch();
            o.checker.scheduleWithFixedDelay(o::checkWatch, 1, 1, TimeUnit.SECONDS);
            return o;
        } catch (IOException | RuntimeException e) {
            if (o != null) {
                o.close();
            } else {
                c.close();
            }
            throw e;
        }
    }

    /** Watches, then reads: a change made between the two is in the read, one made after it is notified. */
    private synchronized void watch() throws IOException {
        cookie = objects.watch(watchOid, new RadosObject.Watcher() {
            @Override
            public void notified(byte[] payload) {
                try {
                    learned(Long.parseLong(new String(payload, StandardCharsets.US_ASCII)));
                } catch (NumberFormatException e) {
                    watching = false; // not ours: be unsure until the next read
                }
            }

            @Override
            public void broken(int errno) {
                watching = false;
                LOG.warn("{}: watch broken (errno {}); reading before every decision until it is made again", name,
                        -errno);
            }
        });
        learned(objects.read(oid).version());
        watching = true;
    }

    private void checkWatch() {
        try {
            synchronized (this) {
                if (watching && objects.watchCheck(cookie) >= 0) {
                    return;
                }
                watching = false;
                objects.unwatch(cookie);
                watch();
            }
            LOG.info("{}: watch made again", name);
        } catch (IOException | RuntimeException e) {
            LOG.warn("{}: cannot watch again yet: {}", name, e.getMessage());
        }
    }

    private void learned(long version) {
        known.accumulateAndGet(version, Math::max);
    }

    @Override
    public Contents read() throws IOException {
        RadosObject.Versioned v = objects.read(oid);
        learned(v.version());
        return new Contents(v.version(), v.data());
    }

    @Override
    public long replace(long expectedVersion, byte[] bytes) throws IOException {
        long v = objects.write(oid, bytes, expectedVersion);
        if (v == RadosObject.LOST) {
            return -1;
        }
        learned(v);
        if (!objects.notify(watchOid, Long.toString(v).getBytes(StandardCharsets.US_ASCII), NOTIFY_TIMEOUT)) {
            LOG.warn("{}: version {} written, but a watcher did not acknowledge it within {} s (a gateway gone, or"
                    + " cut off from the cluster: its watch breaks and it reads before each decision)", name, v,
                    NOTIFY_TIMEOUT.toSeconds());
        }
        return v;
    }

    @Override
    public long knownVersion() {
        return watching ? known.get() : UNSURE;
    }

    @Override
    public void close() {
        checker.shutdownNow();
        objects.close();
        connection.close();
    }

    @Override
    public String toString() {
        return name;
    }
}
