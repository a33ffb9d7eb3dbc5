package io.numaiscsi.daemon.group;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.GroupDocument;
import io.numaiscsi.config.GroupPlacement;
import io.numaiscsi.config.GroupSettings;
import io.numaiscsi.config.GroupTargets;
import io.numaiscsi.config.SecretCodec;
import io.numaiscsi.config.TargetConfig;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.TargetDaemon;
import io.numaiscsi.daemon.registry.RegisteredLun;
import io.numaiscsi.rbd.ImageOwnership;
import io.numaiscsi.rbd.RadosObject;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This gateway as a member of a gateway group: it joins the group at start (making the group, or taking the lowest
 * free port in it), serves the targets of the group's configuration, applies every newer version as a reload does
 * (read each {@link #POLL}), acts on each new placement (takes the LUNs it now owns once their old owner let them go,
 * or after {@link #RELEASE_WAIT} by fencing it; lets go of those it no longer owns), and tells the others its health.
 *
 * <p>A version it cannot read (corrupt, from a newer release, of another cluster) is refused whole: the member serves
 * the last version it read and names the problem in its health and the log.
 */
public final class GroupMember implements AutoCloseable {
    static final Duration POLL = Duration.ofSeconds(1);
    static final Duration HEALTH_EVERY = Duration.ofSeconds(2);
    /** A member whose health is older than this is taken as down (by this gateway's clock). */
    static final Duration UP_WITHIN = Duration.ofSeconds(15);
    /** How long a new owner waits for the old one to let a LUN go before it takes it by fencing the old one. */
    static final Duration RELEASE_WAIT = Duration.ofSeconds(10);
    /** How often the member with the lowest port among those up looks for LUNs whose owner is down. */
    static final Duration OWNER_CHECK = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(GroupMember.class);

    private final GroupSettings settings;
    private final SecretCodec codec;
    private final GroupObject object;
    private final String fsid;
    private final ScheduledExecutorService thread;
    private volatile GroupDocument doc;
    private volatile long version;
    private volatile String problem;
    private long refusedVersion;
    private volatile TargetDaemon daemon;
    private final LunHandOver handOver;
    private final PlacementRecords records;

    private GroupMember(GroupSettings settings, SecretCodec codec, GroupObject object, String fsid) {
        this.settings = settings;
        this.codec = codec;
        this.object = object;
        this.fsid = fsid;
        this.thread = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("group", true));
        this.records = new PlacementRecords(this);
        this.handOver = new LunHandOver(settings, thread, () -> doc, this::othersActedOn, records::initiatorMovedHere);
    }

    /**
     * Reaches the group of {@code config}, checks it is of the cluster this gateway joined before, and joins it when
     * not a member yet.
     *
     * @throws IOException what keeps this gateway out, in plain words
     */
    public static GroupMember join(TargetConfig config) throws IOException {
        GroupSettings s = config.group();
        SecretCodec codec = SecretCodecs.of(s);
        GroupObject object;
        try {
            object = GroupObject.connect(s);
        } catch (IOException e) {
            throw new IOException(
                    "gateway group " + s.name() + ": cannot reach the cluster with " + s.cephConf() + " as client."
                            + s.user() + ": " + e.getMessage(),
                    e);
        }
        try {
            String fsid = object.fsid();
            FsidPin.check(config.daemon().dataDir(), s.name(), fsid);
            GroupMember m = new GroupMember(s, codec, object, fsid);
            m.enter();
            FsidPin.record(config.daemon().dataDir(), s.name(), fsid);
            return m;
        } catch (IOException | RuntimeException e) {
            object.close();
            throw e;
        }
    }

    /** Reads the group (made when there is none), then adds this member if it is not one. */
    private void enter() throws IOException {
        for (int attempt = 0; attempt < GroupChanges.ATTEMPTS; attempt++) {
            GroupObject.Text t = object.read();
            GroupDocument current = t.version() == RadosObject.ABSENT ? GroupDocument.empty(fsid) : parse(t);
            if (current.member(settings.member()) != null) {
                doc = current;
                version = t.version();
                LOG.info(
                        "gateway group {}: member {} (port {}), configuration version {}",
                        settings.name(),
                        settings.member(),
                        current.member(settings.member()).port(),
                        version);
                return;
            }
            int port = freePort(current);
            List<GroupDocument.Member> members = new ArrayList<>(current.members());
            members.add(new GroupDocument.Member(settings.member(), port));
            long v = object.replace(current.withMembers(members).write(codec), t.version());
            if (v != RadosObject.LOST) {
                LOG.info(
                        "gateway group {}: {} as member {} (port {})",
                        settings.name(),
                        t.version() == RadosObject.ABSENT ? "made the group in " + describe() : "joined",
                        settings.member(),
                        port);
            }
        }
        throw new IOException("gateway group " + settings.name() + ": its configuration kept changing while this"
                + " gateway joined; start it again");
    }

    private static int freePort(GroupDocument d) throws IOException {
        for (int port = 1; port <= GroupDocument.MAX_MEMBERS; port++) {
            final int p = port;
            if (d.members().stream().noneMatch(m -> m.port() == p)) {
                return port;
            }
        }
        throw new IOException("the gateway group has " + GroupDocument.MAX_MEMBERS + " members, as many as it can;"
                + " remove one first (numa-iscsi-admin group member-remove NAME)");
    }

    /** The document in {@code t}, checked to be of this cluster; refused with what is wrong. */
    GroupDocument parse(GroupObject.Text t) throws IOException {
        GroupDocument d;
        try {
            d = GroupDocument.parse(t.text(), describe(), codec);
        } catch (ConfigException e) {
            throw new IOException(
                    "the gateway group's configuration (version " + t.version() + ") is refused: " + e.getMessage());
        }
        if (!d.fsid().equals(fsid)) {
            throw new IOException("the gateway group's configuration " + describe() + " belongs to cluster " + d.fsid()
                    + ", but this gateway reaches cluster " + fsid + " with " + settings.cephConf() + ": it was copied"
                    + " from another cluster; check ceph-conf, or remove the object and let the members make it again");
        }
        return d;
    }

    /** Where the group's configuration lives, for messages. */
    String describe() {
        return "RADOS object " + settings.pool() + "/" + settings.objectName();
    }

    /** The targets this member serves at start. */
    public List<TargetDefinition> targets() {
        return GroupTargets.forMember(doc, settings);
    }

    /** Applies the group's changes to {@code running} from now on. */
    public void serve(TargetDaemon running) {
        this.daemon = running;
        thread.execute(() -> handOver.start(running));
        thread.scheduleWithFixedDelay(this::poll, POLL.toMillis(), POLL.toMillis(), TimeUnit.MILLISECONDS);
        thread.scheduleWithFixedDelay(this::tellHealth, 0, HEALTH_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        thread.scheduleWithFixedDelay(
                records::replaceDownOwners, OWNER_CHECK.toMillis(), OWNER_CHECK.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Reads the group now and applies it if newer; returns the version served then. Any thread. */
    long applyNow(Duration timeout) throws IOException {
        return onThread(
                () -> {
                    poll();
                    return version;
                },
                timeout);
    }

    /** Runs {@code work} on the group's thread, so it never interleaves with applying a version. */
    <T> T onThread(Callable<T> work, Duration timeout) throws IOException {
        try {
            return thread.submit(work).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } catch (TimeoutException e) {
            throw new IOException("the gateway is still applying the group's configuration; look again shortly");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io
                    ? io
                    : new IOException(e.getCause().getMessage(), e.getCause());
        }
    }

    /** Reads the group now and applies it if newer; on the group's thread. */
    void applyNewer() {
        poll();
    }

    private void poll() {
        GroupObject.Text t;
        try {
            t = object.read();
        } catch (IOException e) {
            note("cannot read the group's configuration: " + e.getMessage());
            return;
        }
        if (t.version() <= version || t.version() == refusedVersion) {
            return;
        }
        GroupDocument next;
        try {
            next = parse(t);
        } catch (IOException e) {
            refusedVersion = t.version();
            problem = e.getMessage() + "; serving version " + version + " on";
            LOG.error("gateway group {}: {}", settings.name(), problem);
            return;
        }
        apply(next, t.version());
    }

    private void apply(GroupDocument next, long nextVersion) {
        boolean wasMember = doc.member(settings.member()) != null;
        TargetConfig wanted = daemon.runningConfig().withTargets(GroupTargets.forMember(next, settings));
        TargetDaemon.ReloadReport report = daemon.reload(wanted);
        doc = next;
        version = nextVersion;
        List<String> problems = new ArrayList<>(report.failures());
        report.needRestart().forEach(r -> problems.add("not applied until a restart: " + r));
        problem = problems.isEmpty() ? null : "version " + nextVersion + ": " + String.join("; ", problems);
        LOG.info(
                "gateway group {}: serving configuration version {} ({} change(s) applied{})",
                settings.name(),
                nextVersion,
                report.applied(),
                problem == null ? "" : "; " + problem);
        if (wasMember && next.member(settings.member()) == null) {
            LOG.warn(
                    "gateway group {}: this gateway ({}) was removed from the group and serves none of its targets;"
                            + " restart it to join again",
                    settings.name(),
                    settings.member());
        }
        handOver.placementIn(next);
        tellHealth();
    }

    private void tellHealth() {
        GroupDocument.Member me = doc.member(settings.member());
        if (me == null) {
            return;
        }
        try {
            object.health(
                    settings.member(),
                    new GroupHealth(
                                    System.currentTimeMillis(),
                                    version,
                                    handOver.placementActedOn(),
                                    me.port(),
                                    problem)
                            .bytes());
        } catch (IOException e) {
            note("cannot tell the group this gateway's health: " + e.getMessage());
        }
    }

    /** The RBD LUNs served now with their image's lock, by LUN (the newest unit of each); on the group's thread. */
    Map<GroupPlacement.LunRef, ImageOwnership> servedImages() {
        return handOver.servedImages();
    }

    /** A problem with the cluster, logged when it first shows (the next success clears it). */
    void note(String what) {
        if (!what.equals(problem)) {
            LOG.warn("gateway group {}: {}", settings.name(), what);
        }
        problem = what;
    }

    /** Every member's health as last told, by name; null for one that never told. */
    Map<String, GroupHealth> health(GroupDocument d) throws IOException {
        Map<String, GroupHealth> out = new HashMap<>();
        for (GroupDocument.Member m : d.members()) {
            out.put(m.name(), GroupHealth.of(object.healthOf(m.name())));
        }
        return out;
    }

    /** Whether every other member that is up has acted on {@code placement} (told so in its health). */
    private boolean othersActedOn(long placement) {
        try {
            for (Map.Entry<String, GroupHealth> e : health(doc).entrySet()) {
                GroupHealth h = e.getValue();
                if (!e.getKey().equals(settings.member()) && up(h) && h.placement() < placement) {
                    return false;
                }
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether {@code h} was told recently enough for its member to count as up. */
    static boolean up(GroupHealth h) {
        return h != null && System.currentTimeMillis() - h.time() < UP_WITHIN.toMillis();
    }

    /** The version of the group's configuration this member serves (for the metrics). */
    public long configurationVersion() {
        return version;
    }

    /** How many members the group has, as the version served says. */
    public int memberCount() {
        return doc.members().size();
    }

    /** How many of the group's LUNs this member serves active/optimized now (holds the image of). */
    public long lunsServedHere() {
        TargetDaemon d = daemon;
        if (d == null) {
            return 0;
        }
        return d.registry().luns().stream()
                .map(RegisteredLun::imageOwnership)
                .filter(i -> i != null && i.state() == ImageOwnership.State.OWNER)
                .count();
    }

    /** Whether this member has a problem with the group's configuration or the cluster now. */
    public boolean hasProblem() {
        return problem != null;
    }

    GroupDocument document() {
        return doc;
    }

    long version() {
        return version;
    }

    String problem() {
        return problem;
    }

    GroupSettings settings() {
        return settings;
    }

    SecretCodec codec() {
        return codec;
    }

    GroupObject object() {
        return object;
    }

    String fsid() {
        return fsid;
    }

    @Override
    public void close() {
        thread.shutdownNow();
        object.close();
    }
}
