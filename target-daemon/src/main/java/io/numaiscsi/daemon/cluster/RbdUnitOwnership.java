package io.numaiscsi.daemon.cluster;

import io.numaiscsi.rbd.ImageOwnership;
import io.numaiscsi.scsi.SenseReason;
import io.numaiscsi.scsi.TargetPortGroups.AccessState;
import io.numaiscsi.scsi.UnitOwnership;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RBD LUN that the gateways of a target share, as the SCSI layer's {@link UnitOwnership}: active/optimized while
 * this gateway holds the image's exclusive lock, standby while it does not, transitioning while the lock moves or a
 * fenced gateway reconnects. SET TARGET PORT GROUPS takes the lock (fencing its holder) or gives it up.
 */
public final class RbdUnitOwnership implements UnitOwnership, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RbdUnitOwnership.class);
    private static final long RELEASE_SECONDS = 30;

    private final ImageOwnership owner;
    private final String what;
    private volatile long takeOversRefusedUntil;
    private volatile Supplier<Runnable> initiatorTakeOver = () -> () -> {};

    public RbdUnitOwnership(ImageOwnership owner, String what) {
        this.owner = owner;
        this.what = what;
        this.takeOversRefusedUntil = System.nanoTime();
    }

    /**
     * Until {@code deadline} ({@link System#nanoTime()}), SET TARGET PORT GROUPS asking this gateway to take the image
     * is answered NOT READY, ASYMMETRIC ACCESS STATE TRANSITION (the initiator retries): a gateway group moves the LUN
     * to another member, and an initiator that meets the short moment when nobody holds the lock must not pull it here.
     */
    public void refuseTakeOversUntil(long deadline) {
        takeOversRefusedUntil = deadline;
    }

    /**
     * {@code accepted} is asked when SET TARGET PORT GROUPS makes this gateway take the image (it held no lock), and
     * what it returns runs once the gateway holds the lock.
     */
    public void onInitiatorTakeOver(Supplier<Runnable> accepted) {
        initiatorTakeOver = accepted;
    }

    /** The image's lock as this gateway manages it. */
    public ImageOwnership image() {
        return owner;
    }

    @Override
    public AccessState state() {
        return switch (owner.state()) {
            case OWNER -> AccessState.ACTIVE_OPTIMIZED;
            case STANDBY -> AccessState.STANDBY;
            case TAKING_OVER, RECOVERING -> AccessState.TRANSITIONING;
        };
    }

    @Override
    public int ownerGroup() {
        return owner.ownerGroup();
    }

    @Override
    public void request(boolean active, Consumer<SenseReason> done) {
        if (active && owner.state() != ImageOwnership.State.OWNER && takeOversRefusedUntil - System.nanoTime() > 0) {
            LOG.info(
                    "{}: SET TARGET PORT GROUPS asked this gateway to take the image while the gateway group moves it"
                            + " to another gateway; answered transitioning, the initiator retries",
                    what);
            done.accept(SenseReason.ASYMMETRIC_ACCESS_STATE_TRANSITION);
            return;
        }
        Runnable taken = active && owner.state() != ImageOwnership.State.OWNER ? initiatorTakeOver.get() : () -> {};
        CompletableFuture<Void> move = active ? owner.takeOver() : owner.release();
        move.whenComplete((ok, failure) -> {
            if (failure == null) {
                taken.run();
            }
            done.accept(failure == null ? null : refused(active, failure));
        });
    }

    private SenseReason refused(boolean active, Throwable failure) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof ImageOwnership.NotNowException || owner.state() == ImageOwnership.State.RECOVERING) {
            LOG.warn(
                    "{}: SET TARGET PORT GROUPS arrived while this gateway reconnects; the initiator retries ({})",
                    what,
                    cause.getMessage());
            return SenseReason.ASYMMETRIC_ACCESS_STATE_TRANSITION;
        }
        LOG.error(
                "{}: SET TARGET PORT GROUPS could not {} the image: {}",
                what,
                active ? "take over" : "give up",
                cause.getMessage());
        return SenseReason.SET_TARGET_PORT_GROUPS_COMMAND_FAILED;
    }

    @Override
    public void events(Events events) {
        owner.events(new ImageOwnership.Events() {
            @Override
            public void stateChanged(ImageOwnership.State now) {
                events.changed();
            }

            @Override
            public void lost(Runnable drained) {
                events.lost(drained);
            }
        });
    }

    /** Gives the lock up (a peer then takes it without fencing this gateway) and stops the checks. */
    @Override
    public void close() {
        try {
            owner.release().get(RELEASE_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("{}: could not release the image's lock before closing: {}", what, e.getMessage());
        }
        owner.close();
    }
}
