package io.numaiscsi.scsi;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Keeps one unit's persistent reservations in step with the object several gateways share ({@link SharedReservations}):
 * the unit's state is a cache of the object at {@link #sharedVersion}; before each decision a changed version is read
 * and taken up (with the unit attentions the change owes this gateway's initiators); an OUT's new state is published
 * with a compare-and-swap, and a lost race takes the winner's state up so the OUT is decided again. On the unit's
 * thread only.
 */
final class SharedReservationSync {
    private final PersistentReservations rules;
    /** The cluster object the state is shared through, or null: this process's alone. */
    private SharedReservations shared;
    /** The version of {@link #shared} the rules' state reflects; -1 forces a read. */
    private long sharedVersion = -1;
    /** The nexuses whose registrations other gateways removed since {@link #takeLostToPeers} was last called. */
    private final List<ItNexus> lostToPeers = new ArrayList<>();
    /** Whether the shared store tells this unit of changes (then {@link #lostToPeers} is collected and consumed). */
    private boolean peersNotify;

    private CompletionStage<Void> takenUp = SharedReservations.Replaced.DONE;

    SharedReservationSync(PersistentReservations rules) {
        this.rules = rules;
    }

    SharedReservations shared() {
        return shared;
    }

    /**
     * Shares the state through {@code object} from now on, starting from what it holds; an object that was never
     * written (a fresh tmpfs after a reboot) takes this unit's state instead when it has one (restored from its APTPL
     * file), so the reservations of the last gateway up do not vanish.
     */
    void share(SharedReservations object) throws IOException {
        shared = object;
        rules.sharedWithPeers();
        SharedReservations.Versioned v = object.read();
        if (v.version() == 0 && (rules.hasRegistrations() || rules.aptpl())) {
            sharedVersion = 0;
            if (publish(false)) { // lost: a peer wrote first, and its state is taken up
                try {
                    takenUp.toCompletableFuture().join();
                } catch (CompletionException e) {
                    throw new IOException(e.getCause().getMessage(), e.getCause());
                }
            }
            return;
        }
        rules.load(v.state());
        sharedVersion = v.version();
    }

    /** The shared store tells of other gateways' changes: collect who they unregistered ({@link #takeLostToPeers}). */
    void peersNotify() {
        peersNotify = true;
    }

    /**
     * Takes up the shared object's state when another gateway changed it (a compare of two longs when nothing did).
     *
     * @throws IOException the object could not be read; the state is then read again at the next decision
     */
    void refresh() throws IOException {
        if (shared == null || shared.knownVersion() == sharedVersion) {
            return;
        }
        SharedReservations.Versioned v;
        try {
            v = shared.read();
        } catch (IOException e) {
            sharedVersion = -1;
            throw e;
        }
        takeUp(v);
    }

    /** A state another gateway made becomes this unit's, with the unit attentions it owes the initiators here. */
    private void takeUp(SharedReservations.Versioned v) {
        ReservationState before = rules.snapshot();
        rules.load(v.state());
        sharedVersion = v.version();
        List<ItNexus> lost = rules.announceChangeFrom(before);
        if (peersNotify) {
            for (ItNexus n : lost) {
                if (!lostToPeers.contains(n)) {
                    lostToPeers.add(n);
                }
            }
        }
    }

    /** The nexuses other gateways unregistered since the last call (whose tasks a change notice waits for). */
    List<ItNexus> takeLostToPeers() {
        List<ItNexus> lost = List.copyOf(lostToPeers);
        lostToPeers.clear();
        return lost;
    }

    /** The next decision reads the shared state first (this gateway just became the one that writes the unit). */
    void forgetSharedVersion() {
        if (shared != null) {
            sharedVersion = -1;
        }
    }

    /**
     * Publishes the state the last OUT made: true when it is now the shared object's (or there is none); false when
     * another gateway changed the object first, whose state is then this unit's and the OUT must be decided again.
     * After true, {@link #takenUp} says when the other gateways hold it too.
     */
    boolean publish(boolean abortsTasks) throws IOException {
        takenUp = SharedReservations.Replaced.DONE;
        if (shared == null) {
            return true;
        }
        SharedReservations.Replaced r;
        try {
            r = shared.replace(sharedVersion, rules.snapshot(), abortsTasks);
        } catch (IOException e) {
            sharedVersion = -1; // what the object holds is unknown now: read it before the next decision
            throw e;
        }
        if (r.version() >= 0) {
            sharedVersion = r.version();
            takenUp = r.takenUp();
            return true;
        }
        takeUp(shared.read());
        return false;
    }

    /** Completes once the other gateways hold what the last {@link #publish} wrote (at once without any). */
    CompletionStage<Void> takenUp() {
        return takenUp;
    }
}
