package io.numaiscsi.daemon.group;

import io.numaiscsi.config.GroupDocument;
import io.numaiscsi.config.GroupPlacement;
import io.numaiscsi.config.GroupSettings;
import io.numaiscsi.daemon.TargetDaemon;
import io.numaiscsi.daemon.cluster.RbdUnitOwnership;
import io.numaiscsi.daemon.registry.RegisteredLun;
import io.numaiscsi.rbd.ImageOwnership;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's side of each placement, on the group's thread: takes the LUNs the member now owns once their old owner let
 * them go (or after {@link GroupMember#RELEASE_WAIT} by fencing it), lets go of those it no longer owns once the other
 * members refuse initiators' requests for them, and at start takes back what an earlier run of it still holds. Tells
 * the group when an initiator moved a LUN here.
 */
final class LunHandOver {
    private static final Logger LOG = LoggerFactory.getLogger(GroupMember.class);
    /** How long after the new owner of a moved LUN holds its lock the other members still refuse to take it. */
    static final Duration SETTLE = Duration.ofSeconds(5);
    /** The longest the others refuse while the new owner has not taken it (one that died gets replaced as owner). */
    static final Duration REFUSE_LIMIT = GroupMember.RELEASE_WAIT.plusSeconds(10);

    /**
     * The longest an owner that lets a LUN go waits for the other members to act on the placement first (they learn it
     * within {@link GroupMember#POLL}); until they do, an initiator whose path went standby could pull the LUN to one
     * of them instead of the new owner.
     */
    static final Duration NOTICE_LIMIT = Duration.ofSeconds(3);

    private static final long RECHECK_MS = 500;
    private static final long NOTICE_RECHECK_MS = 100;

    /** Told when an initiator moved a LUN to this member, with the placement the member served then. */
    interface InitiatorMoves {
        void movedHere(GroupPlacement.LunRef lun, long placement);
    }

    private final GroupSettings settings;
    private final ScheduledExecutorService thread;
    private final Supplier<GroupDocument> doc;
    private final LongPredicate othersActedOn;
    private final InitiatorMoves initiatorMoves;
    private TargetDaemon daemon;
    /** Written on the group's thread; read where initiators' requests arrive. */
    private volatile long placementActedOn;

    LunHandOver(
            GroupSettings settings,
            ScheduledExecutorService thread,
            Supplier<GroupDocument> doc,
            LongPredicate othersActedOn,
            InitiatorMoves initiatorMoves) {
        this.settings = settings;
        this.thread = thread;
        this.doc = doc;
        this.othersActedOn = othersActedOn;
        this.initiatorMoves = initiatorMoves;
    }

    /** The member serves {@code running}: the owners took their free LUNs at start; this run takes back its own. */
    void start(TargetDaemon running) {
        daemon = running;
        placementActedOn = doc.get().placement();
        listenForInitiatorMoves();
        reclaimFromEarlierRun();
    }

    /** Acts on {@code next}'s placement when it is one this member has not acted on yet. */
    void placementIn(GroupDocument next) {
        listenForInitiatorMoves();
        if (next.placement() != placementActedOn) {
            placementActedOn = next.placement();
            actOnPlacement(next);
        }
    }

    /** The placement this member acted on last (told in its health). */
    long placementActedOn() {
        return placementActedOn;
    }

    /**
     * Takes the LUNs this member owns now and lets go of those it does not; while another member takes one of them,
     * refuses initiators' requests to take it here (they would otherwise pull it to whichever gateway they try first).
     */
    private void actOnPlacement(GroupDocument d) {
        for (Map.Entry<GroupPlacement.LunRef, RbdUnitOwnership> e :
                servedUnits().entrySet()) {
            String owner = GroupPlacement.ownerOf(d, e.getKey());
            ImageOwnership image = e.getValue().image();
            GroupDocument.Member ownerMember = owner == null ? null : d.member(owner);
            if (ownerMember != null && !settings.member().equals(owner) && image.ownerGroup() != ownerMember.port()) {
                refuseWhileMoving(e.getValue(), ownerMember.port(), d.placement(), System.nanoTime());
            }
            if (settings.member().equals(owner) && image.state() != ImageOwnership.State.OWNER) {
                LOG.info(
                        "gateway group {}: {} is this gateway's now; taking it once {} lets it go",
                        settings.name(),
                        e.getKey(),
                        image.ownerGroup() == 0 ? "nobody" : "port " + image.ownerGroup());
                takeWhenFree(e.getKey(), image, d.placement(), System.nanoTime());
            } else if (!settings.member().equals(owner) && image.state() == ImageOwnership.State.OWNER) {
                LOG.info(
                        "gateway group {}: {} is {}'s now; letting it go once the other members know",
                        settings.name(),
                        e.getKey(),
                        owner);
                releaseOnceOthersKnow(e.getKey(), image, d.placement(), System.nanoTime());
            }
        }
    }

    /**
     * Lets {@code lun} go once every other member that is up acted on {@code placement} (so each refuses initiators'
     * requests to take it), or after {@link #NOTICE_LIMIT}, unless a later placement came in between.
     */
    private void releaseOnceOthersKnow(GroupPlacement.LunRef lun, ImageOwnership image, long placement, long since) {
        if (placementActedOn != placement || image.state() != ImageOwnership.State.OWNER) {
            return;
        }
        if (!othersActedOn.test(placement) && System.nanoTime() - since < NOTICE_LIMIT.toNanos()) {
            thread.schedule(
                    () -> releaseOnceOthersKnow(lun, image, placement, since),
                    NOTICE_RECHECK_MS,
                    TimeUnit.MILLISECONDS);
            return;
        }
        image.release().whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.warn("gateway group {}: could not let {} go: {}", settings.name(), lun, failure.getMessage());
            }
        });
    }

    /**
     * Each LUN served here tells {@link #initiatorMoves}, on the group's thread, when SET TARGET PORT GROUPS made this
     * member take it, with the placement served when the request arrived.
     */
    private void listenForInitiatorMoves() {
        servedUnits()
                .forEach((lun, unit) -> unit.onInitiatorTakeOver(() -> {
                    long placement = placementActedOn;
                    return () -> thread.execute(() -> initiatorMoves.movedHere(lun, placement));
                }));
    }

    /**
     * The LUNs this member owns whose lock an earlier run of it still holds (killed: its lock lingers until the
     * cluster drops the dead client): no other member took them over, so this run takes them (fencing the dead one).
     */
    private void reclaimFromEarlierRun() {
        int port = doc.get().member(settings.member()).port();
        for (Map.Entry<GroupPlacement.LunRef, ImageOwnership> e : servedImages().entrySet()) {
            ImageOwnership image = e.getValue();
            if (settings.member().equals(GroupPlacement.ownerOf(doc.get(), e.getKey()))
                    && image.state() == ImageOwnership.State.STANDBY
                    && image.ownerGroup() == port) {
                LOG.info(
                        "gateway group {}: {} is still locked by an earlier run of this gateway; taking it back",
                        settings.name(),
                        e.getKey());
                takeWhenFree(e.getKey(), image, placementActedOn, System.nanoTime());
            }
        }
    }

    /**
     * Takes {@code lun} once nobody holds its lock (or an earlier run of this member does), or after {@link GroupMember#RELEASE_WAIT} from whoever does (fencing a member
     * that stalls), unless a later placement came in between.
     */
    private void takeWhenFree(GroupPlacement.LunRef lun, ImageOwnership image, long placement, long since) {
        if (placementActedOn != placement || image.state() == ImageOwnership.State.OWNER) {
            return;
        }
        boolean waited = System.nanoTime() - since >= GroupMember.RELEASE_WAIT.toNanos();
        GroupDocument.Member me = doc.get().member(settings.member());
        boolean earlierRun = me != null && image.ownerGroup() == me.port();
        if (image.ownerGroup() != 0 && !earlierRun && !waited) {
            thread.schedule(() -> takeWhenFree(lun, image, placement, since), 200, TimeUnit.MILLISECONDS);
            return;
        }
        if (waited && image.ownerGroup() != 0) {
            LOG.warn(
                    "gateway group {}: port {} did not let {} go within {} s; taking it by fencing that gateway",
                    settings.name(),
                    image.ownerGroup(),
                    lun,
                    GroupMember.RELEASE_WAIT.toSeconds());
        }
        image.takeOver().whenComplete((ok, failure) -> {
            if (failure == null) {
                LOG.info("gateway group {}: {} is served here (active/optimized)", settings.name(), lun);
            } else {
                LOG.warn("gateway group {}: could not take {}: {}", settings.name(), lun, failure.getMessage());
            }
        });
    }

    /**
     * Refuses initiators' SET TARGET PORT GROUPS for {@code unit} until the member with port {@code ownerPort} holds
     * its lock, and {@link #SETTLE} after, unless a later placement came in or {@link #REFUSE_LIMIT} has passed.
     */
    private void refuseWhileMoving(RbdUnitOwnership unit, int ownerPort, long placement, long since) {
        long now = System.nanoTime();
        if (placementActedOn != placement || now - since > REFUSE_LIMIT.toNanos()) {
            return;
        }
        if (unit.image().ownerGroup() == ownerPort) {
            unit.refuseTakeOversUntil(now + SETTLE.toNanos());
            return;
        }
        unit.refuseTakeOversUntil(now + 2 * TimeUnit.MILLISECONDS.toNanos(RECHECK_MS));
        thread.schedule(() -> refuseWhileMoving(unit, ownerPort, placement, since), RECHECK_MS, TimeUnit.MILLISECONDS);
    }

    /** The RBD LUNs served now with their image's lock, by LUN (the newest unit of each). */
    Map<GroupPlacement.LunRef, ImageOwnership> servedImages() {
        Map<GroupPlacement.LunRef, ImageOwnership> out = new HashMap<>();
        servedUnits().forEach((lun, unit) -> out.put(lun, unit.image()));
        return out;
    }

    /** The ALUA side of each RBD LUN served now, by LUN (the newest unit of each). */
    private Map<GroupPlacement.LunRef, RbdUnitOwnership> servedUnits() {
        Map<GroupPlacement.LunRef, RbdUnitOwnership> out = new HashMap<>();
        for (RegisteredLun l : daemon.registry().luns()) {
            RbdUnitOwnership unit = l.unitOwnership();
            if (unit != null) {
                out.put(new GroupPlacement.LunRef(l.target(), l.definition().id()), unit);
            }
        }
        return out;
    }
}
