package io.numaiscsi.daemon.reservations;

import io.numaiscsi.daemon.Reasons;
import io.numaiscsi.daemon.state.DurableFiles;
import io.numaiscsi.scsi.ReservationState;
import io.numaiscsi.scsi.ReservationStore;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One LUN's persistent reservations in one JSON file ({@link ReservationJson}), replaced atomically
 * ({@link DurableFiles}): a crash at any moment leaves the old state or the new one. Writes and removals run one at a time, in the order asked,
 * on the store's thread ({@code io}), never on the event thread that serves the LUN.
 */
final class ReservationFile implements ReservationStore {
    private static final Logger LOG = LoggerFactory.getLogger(ReservationFile.class);

    private final Path file;
    private final String target;
    private final int lun;
    private final Executor io;
    /** The LUN is gone: set on the store's thread; later saves fail. */
    private boolean discarded;

    ReservationFile(Path file, String target, int lun, Executor io) {
        this.file = file;
        this.target = target;
        this.lun = lun;
        this.io = io;
    }

    Path path() {
        return file;
    }

    @Override
    public boolean persists() {
        return true;
    }

    @Override
    public ReservationState load() throws IOException {
        byte[] text;
        try {
            text = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new IOException(
                    "persistent reservations file " + file + " cannot be read (" + Reasons.of(e) + "); the daemon"
                            + " does not serve target " + target + " LUN " + lun
                            + " without the reservations initiators made"
                            + " with APTPL",
                    e);
        }
        try {
            ReservationState s = ReservationJson.decode(text, target, lun);
            LOG.info(
                    "target {} LUN {}: persistent reservations (APTPL) taken up from {}: {} registrations, {}",
                    target,
                    lun,
                    file,
                    s.registrations().size(),
                    s.type() == 0 ? "no reservation" : "a type " + s.type() + " reservation held by " + s.holder());
            return s;
        } catch (IllegalArgumentException e) {
            throw new IOException(
                    "persistent reservations file " + file + " is corrupt: " + e.getMessage() + "; the"
                            + " daemon does not serve target " + target + " LUN " + lun + " without the reservations"
                            + " initiators made with APTPL: repair the file, or remove it to start the LUN without them",
                    e);
        }
    }

    @Override
    public void save(ReservationState state, Consumer<IOException> done) {
        try {
            io.execute(() -> done.accept(saveNow(state)));
        } catch (RejectedExecutionException e) {
            done.accept(new IOException("the reservation store is closed; " + file + " not written", e));
        }
    }

    private IOException saveNow(ReservationState state) {
        if (discarded) {
            return new IOException("target " + target + " LUN " + lun + " was removed; " + file + " not written");
        }
        try {
            if (state.aptpl()) {
                boolean first = !Files.exists(file);
                DurableFiles.replace(file, ReservationJson.encode(target, lun, state));
                if (first) {
                    LOG.info("target {} LUN {}: APTPL active, persistent reservations kept in {}", target, lun, file);
                }
            } else {
                DurableFiles.remove(file);
                LOG.info(
                        "target {} LUN {}: APTPL off, persistent reservations no longer kept ({} removed)",
                        target,
                        lun,
                        file);
            }
            return null;
        } catch (IOException e) {
            return e;
        }
    }

    /** Removes the file (and the target's directory when that empties) and refuses later saves; store's thread. */
    void discardNow() throws IOException {
        discarded = true;
        DurableFiles.remove(file);
        Path dir = file.getParent();
        try {
            if (Files.deleteIfExists(dir)) {
                DurableFiles.syncDirectory(dir.getParent());
            }
        } catch (DirectoryNotEmptyException e) {
            // other LUNs of the target keep theirs
        }
    }

    @Override
    public String toString() {
        return "file " + file;
    }
}
