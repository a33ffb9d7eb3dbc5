package io.numaiscsi.rbd;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of the gateways that export one RBD image may write it: the one holding the image's exclusive lock, taken
 * with librbd's managed locking (no automatic hand-over). The lock moves only when asked ({@link #takeOver}, an
 * initiator's SET TARGET PORT GROUPS): the taker breaks the holder's lock, and librbd first blocklists the holder's
 * client, so the OSDs refuse every write that client still sends, however long it was stalled. A gateway never moves
 * the lock because a write reached it: that write may be older than the initiator's failover.
 *
 * <p>A fenced gateway (its client blocklisted, or its lock gone) notices it by a refused request or by the check it
 * makes every second, and recovers: its commands fail with a retryable status, the commands admitted before the fence
 * drain, the client and image are opened again as a new client, and the gateway serves again as standby. Nothing it
 * decided before is replayed. All of this runs on the image's own thread; {@link #state} is read from any thread.
 */
public final class ImageOwnership implements AutoCloseable {
    /** This gateway's access to the image. */
    public enum State {
        /** Another gateway may hold the lock; this one refuses writes. */
        STANDBY,
        /** Taking the lock (or giving it up). */
        TAKING_OVER,
        /** Holds the lock: the only gateway that writes the image. */
        OWNER,
        /** Fenced: reconnecting as a new client. */
        RECOVERING
    }

    /**
     * Records each client this gateway opens the image with, before that client may take the lock, where the other
     * gateways find it when they must fence this one (the shared reservations' watch object).
     */
    @FunctionalInterface
    public interface ClientRecorder {
        void record(String clientAddress) throws IOException;

        ClientRecorder NONE = address -> {};
    }

    /** A move asked for while this gateway reconnects after a fence: ask again shortly. */
    public static final class NotNowException extends IOException {
        NotNowException(String message) {
            super(message);
        }
    }

    /** What the logical unit over the image is told; called on the image's thread, must not block. */
    public interface Events {
        void stateChanged(State now);

        /** The gateway was fenced: run {@code drained} once no command admitted before this call is executing. */
        void lost(Runnable drained);
    }

    private static final Events NO_EVENTS = new Events() {
        @Override
        public void stateChanged(State now) {}

        @Override
        public void lost(Runnable drained) {
            drained.run();
        }
    };
    private static final Logger LOG = LoggerFactory.getLogger(ImageOwnership.class);
    private static final int LOCK_ATTEMPTS = 4;
    private static final long MAX_RECONNECT_PAUSE_MILLIS = 2_000;

    private final RbdBlockDevice device;
    private final int group;
    private final Duration drainLimit;
    private final ClientRecorder recorder;
    private final ScheduledExecutorService thread;
    private volatile State state = State.STANDBY;
    /** The group whose gateway holds the lock, by its metadata; 0 when none or not known. */
    private volatile int ownerGroup;

    private volatile Events events = NO_EVENTS;
    private volatile boolean closed;
    private long ticks;

    private ImageOwnership(RbdBlockDevice device, int group, Duration drainLimit, ClientRecorder recorder) {
        this.device = device;
        this.group = group;
        this.drainLimit = drainLimit;
        this.recorder = recorder;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rbd-owner " + device.name());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts managing {@code device}'s lock (the device must have been opened exclusive) for this gateway's target port
     * group {@code group}. With {@code takeIfFree} (the configured active/optimized gateway) the lock is taken when
     * nobody holds it; a lock someone holds is never broken at start: the gateway is standby until an initiator moves
     * the image here. Returns once that is decided.
     *
     * @param drainLimit how long a fenced gateway waits for its commands before it reconnects anyway (their requests
     *                   fail within the client's operation timeout)
     * @param recorder   told of each client before it may take the lock
     */
    public static ImageOwnership start(
            RbdBlockDevice device, int group, boolean takeIfFree, Duration drainLimit, ClientRecorder recorder)
            throws IOException {
        if (!device.exclusive()) {
            throw new IllegalArgumentException(device.name() + " was not opened exclusive");
        }
        ImageOwnership o = new ImageOwnership(device, group, drainLimit, recorder);
        device.fenceListener(o::refused);
        try {
            o.thread
                    .submit(() -> {
                        o.startOnThread(takeIfFree);
                        return null;
                    })
                    .get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            o.close();
            throw new IOException(device.name() + ": interrupted while taking the image's lock");
        } catch (ExecutionException e) {
            o.close();
            throw e.getCause() instanceof IOException io
                    ? io
                    : new IOException(
                            device.name() + ": "
                                    + (e.getCause().getMessage() != null
                                            ? e.getCause().getMessage()
                                            : "taking the image's lock failed unexpectedly"),
                            e);
        }
        o.thread.scheduleWithFixedDelay(o::check, 1, 1, TimeUnit.SECONDS);
        return o;
    }

    private void startOnThread(boolean takeIfFree) throws IOException {
        ImageHandle h = device.handle();
        recorder.record(h.address);
        String holder = ImageLock.owner(h);
        if (holder == null && takeIfFree) {
            int rc = ImageLock.acquire(h);
            if (rc == 0) {
                becomeOwner(h);
                LOG.info(
                        "{}: this gateway (group {}) holds the image's exclusive lock and writes it",
                        device.name(),
                        group);
                return;
            }
            holder = ImageLock.owner(h); // another gateway took it first
        }
        ownerGroup = ImageLock.ownerGroup(h);
        LOG.info(
                "{}: standby; the image's exclusive lock is held by {}",
                device.name(),
                holder == null ? "nobody" : holder + (ownerGroup == 0 ? "" : " (group " + ownerGroup + ")"));
    }

    public void events(Events listener) {
        events = listener == null ? NO_EVENTS : listener;
    }

    public State state() {
        return state;
    }

    /** The target port group of the gateway that holds the lock (this one's when {@link State#OWNER}); 0: none known. */
    public int ownerGroup() {
        return ownerGroup;
    }

    /** This gateway's target port group. */
    public int group() {
        return group;
    }

    /**
     * Takes the lock, breaking (and so fencing) whoever holds it; completes when this gateway writes the image, or
     * exceptionally with a message for the log when the cluster refused.
     */
    public CompletableFuture<Void> takeOver() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        thread.execute(() -> {
            try {
                takeOverOnThread();
                done.complete(null);
            } catch (IOException | RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    /** Gives the lock up after the writes in flight completed (a planned move or a shutdown); standby afterwards. */
    public CompletableFuture<Void> release() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        thread.execute(() -> {
            try {
                releaseOnThread();
                done.complete(null);
            } catch (IOException | RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    private void takeOverOnThread() throws IOException {
        if (state == State.OWNER) {
            if (holdsLock(device.handle())) {
                return;
            }
            // fenced and did not know: recover first (after the commands that asked, this one among them, are answered)
            String address = device.handle().address;
            thread.execute(() -> recover("client " + address + " no longer holds the image's lock"));
            throw new NotNowException(device.name() + ": this gateway was fenced and reconnects; try again");
        }
        if (state == State.RECOVERING) {
            throw new NotNowException(device.name() + ": this gateway is reconnecting to the cluster; try again");
        }
        long start = System.nanoTime();
        set(State.TAKING_OVER);
        ImageHandle h = device.handle();
        try {
            int rc = -Errno.EBUSY;
            for (int attempt = 0; attempt < LOCK_ATTEMPTS && rc != 0; attempt++) {
                String holder = ImageLock.owner(h);
                if (holder != null && !holder.equals(h.address)) {
                    int holderGroup = ImageLock.ownerGroup(h);
                    LOG.warn(
                            "{}: taking the image over from {}{}: its client is blocklisted first, so nothing it still sends"
                                    + " reaches the image",
                            device.name(),
                            holder,
                            holderGroup == 0 ? "" : " (group " + holderGroup + ")");
                    ImageLock.breakLock(h, holder);
                }
                rc = ImageLock.acquire(h);
            }
            if (rc != 0) {
                throw new IOException(device.name() + ": another gateway took the image's lock each time ("
                        + LOCK_ATTEMPTS + " attempts)");
            }
            becomeOwner(h);
            LOG.info(
                    "{}: took the image over in {} ms; this gateway (group {}) writes it now",
                    device.name(),
                    (System.nanoTime() - start) / 1_000_000,
                    group);
        } catch (FencedException e) {
            recover(e.getMessage());
            throw e;
        } catch (IOException | RuntimeException e) {
            set(State.STANDBY);
            throw e;
        }
    }

    private void becomeOwner(ImageHandle h) throws IOException {
        ImageLock.recordOwner(h, group);
        h.writable = true;
        ownerGroup = group;
        set(State.OWNER);
    }

    private void releaseOnThread() throws IOException {
        if (state != State.OWNER) {
            return;
        }
        set(State.TAKING_OVER);
        ImageHandle h = device.handle();
        h.writable = false;
        try {
            if (!device.awaitIdle(drainLimit.toMillis())) {
                LOG.warn(
                        "{}: writes still in flight {} ms after the lock's release began",
                        device.name(),
                        drainLimit.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ImageLock.release(h);
        ownerGroup = 0;
        set(State.STANDBY);
        LOG.info("{}: released the image's exclusive lock; standby", device.name());
    }

    /** The device saw {@code h} refused by the cluster (blocklisted, or the lock gone); any thread. */
    private void refused(ImageHandle h) {
        if (!closed) {
            thread.execute(() -> {
                if (h == device.handle() && state != State.RECOVERING) {
                    recover("the cluster refused a request of client " + h.address);
                }
            });
        }
    }

    /** Every second: an owner checks it still holds the lock; a standby learns who does (for REPORT TARGET PORT GROUPS). */
    private void check() {
        if (closed || state == State.RECOVERING || state == State.TAKING_OVER) {
            return;
        }
        ImageHandle h = device.handle();
        try {
            if (state == State.OWNER) {
                if (!holdsLock(h)) {
                    recover("client " + h.address + " no longer holds the image's lock");
                }
            } else if (ticks++ % 2 == 0) {
                ownerGroup = ImageLock.ownerGroup(h);
            }
        } catch (FencedException e) {
            recover(e.getMessage());
        } catch (IOException | RuntimeException e) {
            LOG.debug("{}: lock check: {}", device.name(), e.getMessage());
        }
    }

    /**
     * Whether {@code h}'s client holds the lock, as the cluster says (a round trip: a client that another gateway has
     * just blocklisted may not know it yet).
     */
    private static boolean holdsLock(ImageHandle h) throws IOException {
        try {
            return h.address.equals(ImageLock.owner(h));
        } catch (FencedException e) {
            return false;
        }
    }

    /**
     * Fenced: refuse everything, let the commands admitted before drain (their requests fail at once on a blocklisted
     * client), then become a new client and serve again as standby.
     */
    private void recover(String why) {
        if (state == State.RECOVERING || closed) {
            return;
        }
        ImageHandle old = device.handle();
        LOG.warn(
                "{}: this gateway was fenced ({}); its commands fail with a retryable status until it has reconnected"
                        + " as a new client",
                device.name(),
                why);
        long fencedAt = System.nanoTime();
        device.fence();
        ownerGroup = 0;
        set(State.RECOVERING);
        CountDownLatch drained = new CountDownLatch(1);
        events.lost(drained::countDown);
        try {
            if (!drained.await(drainLimit.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn(
                        "{}: commands still executing {} ms after the fence; reconnecting anyway (they can only fail)",
                        device.name(),
                        drainLimit.toMillis());
            }
            device.awaitIdle(drainLimit.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        long drainedAt = System.nanoTime();
        long pause = 200;
        boolean told = false;
        while (!closed) {
            try {
                if (device.handle() == old) {
                    device.reopen();
                }
                recorder.record(device.handle().address); // before the new client may take the lock
                break;
            } catch (IOException e) {
                if (!told) {
                    LOG.warn("{}: cannot serve again yet ({}); retrying", device.name(), e.getMessage());
                    told = true;
                }
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
                pause = Math.min(pause * 2, MAX_RECONNECT_PAUSE_MILLIS);
            }
        }
        if (closed) {
            return;
        }
        try {
            ownerGroup = ImageLock.ownerGroup(device.handle());
        } catch (IOException e) {
            ownerGroup = 0;
        }
        set(State.STANDBY);
        long now = System.nanoTime();
        LOG.info(
                "{}: serving again as standby {} ms after the fence ({} ms waiting for its writes, {} ms reconnecting;"
                        + " old client {}, new client {}); an initiator moves the image back here with SET TARGET PORT GROUPS",
                device.name(),
                (now - fencedAt) / 1_000_000,
                (drainedAt - fencedAt) / 1_000_000,
                (now - drainedAt) / 1_000_000,
                old.address,
                device.handle().address);
    }

    private void set(State next) {
        state = next;
        events.stateChanged(next);
    }

    /** Stops the checks; the lock stays with this client until the device closes (use {@link #release} first). */
    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
