package io.numaiscsi.fiotests.soak;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;

/**
 * Keeps one LUN under fio all the time: round after round, each writing and verifying a slot of the LUN other than the
 * one verified last ({@link #committed}), so the data verified last stays intact for a later {@code verify_only}. After
 * a daemon restart that the LUN's data survives, the next round verifies that slot again; a LUN whose data does not
 * survive (RAM, or write-back under SIGKILL) is paused around the restart and forgets it. The null LUN only reads.
 */
final class LunWorker implements Runnable {
    static final Duration ROUND_LIMIT = Duration.ofMinutes(10);

    private final SoakLun lun;
    private final String url;
    private final String initiator;
    private final Path dir;
    private final String fio;
    private final SoakRecorder recorder;
    private final Random random;
    private final int slots;
    private final Object lock = new Object();
    private FioRound current;
    private boolean paused;
    private volatile boolean stopping;
    private FioRound.Job committed;
    private boolean verifyCommitted;
    private int rounds;

    LunWorker(SoakLun lun, String url, Path dir, String fio, SoakRecorder recorder, long seed) {
        this.lun = lun;
        this.url = url;
        this.initiator = "iqn.2026-11.io.numaiscsi:soak-fio-" + lun.label();
        this.dir = dir;
        this.fio = fio;
        this.recorder = recorder;
        this.random = new Random(seed);
        this.slots = (int) Math.max(2, lun.bytes() / FioRound.SLOT_BYTES);
    }

    SoakLun lun() {
        return lun;
    }

    @Override
    public void run() {
        while (!stopping) {
            FioRound round;
            synchronized (lock) {
                while (paused && !stopping) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (stopping) {
                    return;
                }
                round = new FioRound(nextJob(), dir, lun.label() + "-" + (++rounds));
                current = round;
            }
            FioRound.Result result;
            try {
                result = round.run(fio, url, initiator, ROUND_LIMIT);
            } catch (IOException e) {
                result = new FioRound.Result(
                        round.job(),
                        Instant.now(),
                        Instant.now(),
                        FioRound.Outcome.IO_ERROR,
                        0,
                        0,
                        "fio did not run: " + e.getMessage());
            } catch (InterruptedException e) {
                return;
            }
            synchronized (lock) {
                current = null;
                settle(result);
                lock.notifyAll();
            }
            recorder.round(lun, result);
            if (result.outcome() == FioRound.Outcome.OK) {
                round.deleteFiles();
            }
            if (result.outcome().failed() && !stopping) {
                sleep(Duration.ofSeconds(1)); // a daemon that is down: do not spin
            }
        }
    }

    private FioRound.Job nextJob() {
        if (!lun.kind().verifiable()) {
            return FioRound.readJob(random);
        }
        if (verifyCommitted && committed != null) {
            return committed.verifyOnly();
        }
        int slot = random.nextInt(slots);
        if (committed != null && slot == committed.slot()) {
            slot = (slot + 1 + random.nextInt(slots - 1)) % slots;
        }
        return FioRound.writeJob(random, slot);
    }

    /** What the round leaves verified; called with the lock held. */
    private void settle(FioRound.Result r) {
        switch (r.job().type()) {
            case WRITE_VERIFY -> {
                if (r.outcome() == FioRound.Outcome.OK) {
                    committed = r.job();
                }
            }
            case VERIFY_ONLY -> {
                if (r.outcome() == FioRound.Outcome.OK || r.outcome() == FioRound.Outcome.VERIFY_ERROR) {
                    verifyCommitted = false; // a mismatch is recorded once; that slot is not trusted again
                    if (r.outcome() == FioRound.Outcome.VERIFY_ERROR) {
                        committed = null;
                    }
                }
            }
            default -> {}
        }
    }

    /** The next round verifies the slot verified last (after a restart its data must have survived). */
    void verifyCommittedNext() {
        synchronized (lock) {
            verifyCommitted = committed != null;
        }
    }

    /**
     * Before a restart that the LUN's data will not survive: stop the round in flight (its data goes with the
     * daemon) and start none until {@link #resumeForgetting()}.
     */
    void pause() throws InterruptedException {
        synchronized (lock) {
            paused = true;
            if (current != null) {
                current.kill();
            }
            while (current != null) {
                lock.wait();
            }
        }
    }

    /** After the restart: what was written before is gone, so nothing is left to verify; rounds go on. */
    void resumeForgetting() {
        synchronized (lock) {
            committed = null;
            verifyCommitted = false;
            paused = false;
            lock.notifyAll();
        }
    }

    /** The chaos event "an initiator killed mid-I/O": SIGKILL to the fio in flight; false if none was running. */
    boolean killInitiator() {
        synchronized (lock) {
            if (current == null) {
                return false;
            }
            current.kill();
            return true;
        }
    }

    /** Ends the loop after the round in flight ({@code kill}: ends that one too). */
    void stop(boolean kill) {
        stopping = true;
        synchronized (lock) {
            if (kill && current != null) {
                current.kill();
            }
            lock.notifyAll();
        }
    }

    /** After {@link #stop}: a last {@code verify_only} of the slot verified last, or null when there is none. */
    FioRound.Result finalVerify() throws IOException, InterruptedException {
        FioRound.Job job;
        synchronized (lock) {
            if (committed == null) {
                return null;
            }
            job = committed.verifyOnly();
        }
        FioRound.Result r = new FioRound(job, dir, lun.label() + "-final").run(fio, url, initiator, ROUND_LIMIT);
        recorder.round(lun, r);
        return r;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
