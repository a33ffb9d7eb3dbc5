package io.numaiscsi.daemon.cluster;

import io.numaiscsi.rbd.CephClient;
import io.numaiscsi.rbd.FencedException;
import io.numaiscsi.rbd.RadosConnection;
import io.numaiscsi.rbd.RadosObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link VersionedObject} in RADOS, shared by gateways on any hosts: the state is object {@code NAME} (read with its
 * version, replaced with the version asserted); {@code NAME.watch} is an empty object every gateway watches.
 *
 * <p>A won replace notifies the watchers with the new version and waits for their acks; a gateway acknowledges after
 * its unit took the change up ({@link #changes}). A gateway that does not answer within {@link #NOTIFY_TIMEOUT} (a
 * stalled process, a partition, a killed one whose watch lingers) is fenced before the replace returns: its clients
 * recorded on the watch object ({@link GatewayClients}: its watcher, its RBD image's) are blocklisted, so the OSDs
 * refuse whatever it still sends, and its watch breaks. So when a PERSISTENT RESERVE OUT gets GOOD, every other gateway
 * either holds the new state or can no longer reach the cluster.
 *
 * <p>While this gateway's watch is broken a notice could be missed, so {@link #knownVersion} answers {@link #UNSURE}:
 * the unit reads the object before every decision until the watch is made again (checked every second). A gateway
 * that was itself fenced reconnects as a new client, reads the state again and serves on.
 */
public final class RadosVersionedObject implements VersionedObject, AutoCloseable {
    /** Never a version: makes the unit read the object before each decision while the watch is broken. */
    static final long UNSURE = -2;
    /** How long a replace waits for the peers' acks before it fences the silent ones. */
    static final Duration NOTIFY_TIMEOUT = Duration.ofSeconds(5);
    /** 0: the cluster's default (mon_osd_blocklist_default_expire, one hour). */
    private static final Duration BLOCKLIST_EXPIRE = Duration.ZERO;

    private static final String ABORTS = " aborts";
    private static final Logger LOG = LoggerFactory.getLogger(RadosVersionedObject.class);

    /** One connected client with its watch: replaced as a whole when this gateway was fenced. */
    private record Session(RadosConnection connection, RadosObject objects, long gid, String address) {
        void close() {
            objects.close();
            connection.close();
        }
    }

    private final CephClient client;
    private final String pool;
    private final String oid;
    private final String watchOid;
    private final String name;
    private final int localPort;
    private final List<Integer> ports;
    private final AtomicLong known = new AtomicLong();
    private final ScheduledExecutorService checker;
    /** Sends the change notices and waits for their acks, one at a time, off the unit's thread. */
    private final ExecutorService notifier;

    private volatile Session session;
    private volatile boolean watching;
    private volatile ChangeListener listener;
    private long cookie;
    /** The image client last given to {@link #fenceWith}, recorded again after a reconnect. */
    private String imageClient;

    private RadosVersionedObject(CephClient client, String pool, String oid, int localPort, List<Integer> peerPorts) {
        this.client = client;
        this.pool = pool;
        this.oid = oid;
        this.watchOid = oid + ".watch";
        this.name = "RADOS object " + pool + "/" + oid;
        this.localPort = localPort;
        List<Integer> all = new ArrayList<>();
        all.add(localPort);
        all.addAll(peerPorts);
        this.ports = List.copyOf(all);
        this.checker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "watch " + oid);
            t.setDaemon(true);
            return t;
        });
        this.notifier = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "notify " + oid);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Connects as {@code client}, records this gateway's watcher under {@code localPort}, watches {@code oid}'s
     * companion and reads its version. {@code peerPorts}: the other gateways' relative target ports, under which their
     * clients are found when they must be fenced.
     */
    public static RadosVersionedObject open(
            CephClient client, String pool, String oid, int localPort, List<Integer> peerPorts) throws IOException {
        RadosVersionedObject o = new RadosVersionedObject(client, pool, oid, localPort, peerPorts);
        try {
            o.connect();
            o.checker.scheduleWithFixedDelay(o::checkWatch, 1, 1, TimeUnit.SECONDS);
            return o;
        } catch (IOException | RuntimeException e) {
            o.close();
            throw e;
        }
    }

    /** A new client: the watch object made (once), this client recorded, watched, then the state read. */
    private synchronized void connect() throws IOException {
        RadosConnection c = RadosConnection.connect(client);
        Session s;
        try {
            s = new Session(c, RadosObject.open(c, pool), c.instanceId(), c.address());
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        try {
            s.objects().replace(watchOid, new byte[0], RadosObject.ABSENT); // created once; lost: it exists
            record(s, GatewayClients.watcherKey(localPort), GatewayClients.watcherEntry(s.gid(), s.address()));
            if (imageClient != null) {
                record(s, GatewayClients.imageKey(localPort), imageClient);
            }
            session = s;
            watch(s);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private void record(Session s, String key, String entry) throws IOException {
        byte[] old = s.objects().attribute(watchOid, key);
        s.objects().setAttribute(watchOid, key, GatewayClients.prepend(old, entry));
    }

    /** Watches, then reads: a change made between the two is in the read, one made after it is notified. */
    private void watch(Session s) throws IOException {
        cookie = s.objects().watch(watchOid, new RadosObject.Watcher() {
            @Override
            public void notified(byte[] payload, long notifierId, Runnable acknowledge) {
                if (notifierId == s.gid()) {
                    acknowledge.run(); // this gateway's own change: it holds it already
                    return;
                }
                String text = new String(payload, StandardCharsets.US_ASCII);
                boolean aborts = text.endsWith(ABORTS);
                try {
                    learned(Long.parseLong(aborts ? text.substring(0, text.length() - ABORTS.length()) : text));
                } catch (NumberFormatException e) {
                    watching = false; // not ours: be unsure until the next read
                    acknowledge.run();
                    return;
                }
                ChangeListener l = listener;
                if (l == null) {
                    acknowledge.run();
                } else {
                    l.changed(aborts, acknowledge);
                }
            }

            @Override
            public void broken(int errno) {
                watching = false;
                LOG.warn(
                        "{}: watch broken (errno {}); reading before every decision until it is made again",
                        name,
                        -errno);
            }
        });
        learned(s.objects().read(oid).version());
        watching = true;
    }

    private void checkWatch() {
        Session s = session;
        try {
            synchronized (this) {
                if (watching && s.objects().watchCheck(cookie) >= 0) {
                    return;
                }
                watching = false;
                s.objects().unwatch(cookie);
                watch(s);
            }
            LOG.info("{}: watch made again", name);
        } catch (FencedException e) {
            reconnect(s);
        } catch (IOException | RuntimeException e) {
            LOG.warn("{}: cannot watch again yet: {}", name, e.getMessage());
        }
    }

    /** This gateway was fenced: its client is refused for good; a new one reads the state again. */
    @SuppressWarnings("ReferenceEquality") // the same session object, not an equal one
    private synchronized void reconnect(Session old) {
        if (session != old) {
            return; // another thread has reconnected already
        }
        LOG.warn(
                "{}: this gateway's client {} was fenced by another gateway; reconnecting as a new client and reading"
                        + " the reservations again",
                name,
                old.address());
        try {
            watching = false;
            old.close();
            connect();
            LOG.info("{}: reconnected as client {} ({})", name, session.gid(), session.address());
        } catch (IOException | RuntimeException e) {
            LOG.warn("{}: cannot reconnect yet: {}", name, e.getMessage());
        }
    }

    private void learned(long version) {
        known.accumulateAndGet(version, Math::max);
    }

    @Override
    public Contents read() throws IOException {
        RadosObject.Versioned v = session.objects().read(oid);
        learned(v.version());
        return new Contents(v.version(), v.data());
    }

    /** Writes now; tells the other gateways (and fences the silent ones) on {@link #notifier}, in order of writing. */
    @Override
    public Replaced replace(long expectedVersion, byte[] bytes, boolean abortsTasks) throws IOException {
        Session s = session;
        long v = s.objects().write(oid, bytes, expectedVersion);
        if (v == RadosObject.LOST) {
            return Replaced.at(-1);
        }
        learned(v);
        byte[] notice = (v + (abortsTasks ? ABORTS : "")).getBytes(StandardCharsets.US_ASCII);
        CompletableFuture<Void> takenUp = new CompletableFuture<>();
        notifier.execute(() -> {
            try {
                RadosObject.NotifyOutcome outcome = s.objects().notify(watchOid, notice, NOTIFY_TIMEOUT);
                if (!outcome.complete()) {
                    fenceSilent(s, outcome.missed(), v);
                }
                takenUp.complete(null);
            } catch (IOException | RuntimeException e) {
                takenUp.completeExceptionally(e);
            }
        });
        return new Replaced(v, takenUp);
    }

    /**
     * Blocklists the clients of every gateway that did not acknowledge version {@code v}: the watcher that was silent
     * and the image clients its gateway recorded (not this gateway's current ones).
     *
     * @throws IOException a silent watcher is not one of this target's gateways' recorded clients, or the cluster
     *                     refused the blocklist: the change stands, but the command is failed
     */
    private void fenceSilent(Session s, List<Long> missed, long v) throws IOException {
        List<Long> others = new ArrayList<>(missed);
        others.remove(Long.valueOf(s.gid()));
        if (others.isEmpty() && !missed.isEmpty()) {
            return; // only this gateway's own watch: it holds the change
        }
        if (others.isEmpty()) {
            throw new IOException(name + ": version " + v + " written, but a watcher did not acknowledge it and the"
                    + " cluster did not say which; it could not be fenced");
        }
        for (long gid : others) {
            Set<String> addresses = clientsOf(s, gid);
            if (addresses.isEmpty()) {
                throw new IOException(name + ": version " + v + " written, but watcher client." + gid + " did not"
                        + " acknowledge it within " + NOTIFY_TIMEOUT.toSeconds() + " s and is not a recorded client of"
                        + " this target's gateways (ports " + ports + "); it could not be fenced");
            }
            for (String address : addresses) {
                s.connection().blocklist(address, BLOCKLIST_EXPIRE);
            }
            LOG.warn(
                    "{}: a gateway (watcher client.{}) did not acknowledge version {} within {} s; fenced its clients"
                            + " {} before completing the change",
                    name,
                    gid,
                    v,
                    NOTIFY_TIMEOUT.toSeconds(),
                    addresses);
        }
    }

    /** The addresses to blocklist with silent watcher {@code gid}: its own and its gateway's image clients. */
    private Set<String> clientsOf(Session s, long gid) throws IOException {
        Set<String> addresses = new LinkedHashSet<>();
        for (int port : ports) {
            String watcher = GatewayClients.addressOf(
                    GatewayClients.entries(s.objects().attribute(watchOid, GatewayClients.watcherKey(port))), gid);
            if (watcher == null) {
                continue;
            }
            addresses.add(watcher);
            for (String image :
                    GatewayClients.entries(s.objects().attribute(watchOid, GatewayClients.imageKey(port)))) {
                if (!image.equals(imageClient)) { // a port's old clients may include this gateway's current one
                    addresses.add(image);
                }
            }
        }
        addresses.remove(s.address());
        return addresses;
    }

    @Override
    public long knownVersion() {
        return watching ? known.get() : UNSURE;
    }

    @Override
    public void changes(ChangeListener l) {
        listener = l;
    }

    @Override
    public void fenceWith(String clientAddress) throws IOException {
        Session s;
        synchronized (this) {
            imageClient = clientAddress;
            s = session;
            try {
                record(s, GatewayClients.imageKey(localPort), clientAddress);
                return;
            } catch (FencedException e) {
                // this gateway's reservation client was fenced too: the reconnect records the image client as well
            }
        }
        reconnect(s);
        if (!watching) {
            throw new IOException(name + ": cannot record client " + clientAddress + " yet: reconnecting");
        }
    }

    @Override
    public void close() {
        checker.shutdownNow();
        notifier.shutdownNow();
        Session s = session;
        if (s != null) {
            s.close();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
