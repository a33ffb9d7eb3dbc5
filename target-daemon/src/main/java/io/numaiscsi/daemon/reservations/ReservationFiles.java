package io.numaiscsi.daemon.reservations;

import io.numaiscsi.daemon.registry.ReservationStores;
import io.numaiscsi.daemon.state.DurableFiles;
import io.numaiscsi.daemon.state.StateFileWriter;
import io.numaiscsi.scsi.ReservationStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The persistent reservations of every LUN under the data directory, one file each:
 * {@code DATA_DIR/reservations/<target name>/lun-<n>.json} ({@link ReservationFile}). A file exists while an initiator
 * has APTPL active on that LUN. One thread writes them all, in the order the LUNs ask.
 */
public final class ReservationFiles implements ReservationStores, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReservationFiles.class);
    static final String DIRECTORY = "reservations";

    private final Path root;
    private final StateFileWriter io = new StateFileWriter("reservation-store");
    private final Map<String, ReservationFile> open = new ConcurrentHashMap<>();

    public ReservationFiles(Path dataDir) {
        this.root = dataDir.resolve(DIRECTORY);
    }

    /** Where {@code target}'s LUN {@code lun} keeps its reservations. */
    Path fileOf(String target, int lun) {
        return DurableFiles.lunFile(root, target, lun);
    }

    @Override
    public ReservationStore open(String target, int lun) {
        ReservationFile f = new ReservationFile(fileOf(target, lun), target, lun, io);
        open.put(key(target, lun), f);
        return f;
    }

    @Override
    public void discard(String target, int lun) throws IOException {
        ReservationFile f = open.remove(key(target, lun));
        ReservationFile gone = f != null ? f : new ReservationFile(fileOf(target, lun), target, lun, io);
        io.runAndWait(gone::discardNow, gone.path());
    }

    /**
     * Logs a warning for every file no LUN took up (its LUN left the config while the daemon was stopped): a LUN added
     * later under that number would take its reservations up. They are kept, not deleted: a config mistake should not
     * cost a cluster its reservations.
     */
    public void warnAboutUnclaimed() {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (Stream<Path> files = Files.find(
                root,
                2,
                (p, a) -> a.isRegularFile() && p.getFileName().toString().matches("lun-\\d+\\.json"))) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                String lun = name.substring("lun-".length(), name.length() - ".json".length());
                if (!open.containsKey(f.getParent().getFileName() + "/" + lun)) {
                    LOG.warn(
                            "{} holds persistent reservations (APTPL) of a LUN that is not configured; a LUN added"
                                    + " as {} LUN {} takes them up (remove the file to drop them)",
                            f,
                            f.getParent().getFileName(),
                            lun);
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot list {}: {}", root, e.toString());
        }
    }

    private static String key(String target, int lun) {
        return target.toLowerCase(Locale.ROOT) + "/" + lun;
    }

    /** Finishes the writes asked for so far (their commands are waiting for them) and stops the thread. */
    @Override
    public void close() {
        io.close();
    }
}
