package io.numaiscsi.daemon.reservations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.numaiscsi.scsi.ItNexus;
import io.numaiscsi.scsi.ReservationState;
import io.numaiscsi.scsi.ReservationStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class ReservationFilesTest {
    private static final String TARGET = "iqn.2026-11.io.numaiscsi:disk1";
    private static final ItNexus A = new ItNexus("iqn.1994-05.com.redhat:alpha", 0x800000000001L, TARGET, 1);
    private static final ItNexus B = new ItNexus("iqn.1994-05.com.redhat:beta", 0x23D000000002L, TARGET, 1);
    /** A holds a Registrants Only reservation; B is registered with a key that uses all 64 bits. */
    private static final ReservationState HELD = new ReservationState(
            true,
            0xFFFF_FFF0,
            List.of(
                    new ReservationState.Registration(A, 0xA1),
                    new ReservationState.Registration(B, 0xFEDC_BA98_7654_3210L)),
            5,
            A);

    @TempDir
    Path dataDir;

    private ReservationFiles files;

    @AfterEach
    void close() {
        if (files != null) {
            files.close();
        }
    }

    private ReservationFiles files() {
        files = new ReservationFiles(dataDir);
        return files;
    }

    private static void save(ReservationStore store, ReservationState s) throws Exception {
        CompletableFuture<IOException> done = new CompletableFuture<>();
        store.save(s, done::complete);
        IOException failure = done.get(10, TimeUnit.SECONDS);
        if (failure != null) {
            throw failure;
        }
    }

    private Path file() {
        return dataDir.resolve("reservations").resolve(TARGET).resolve("lun-3.json");
    }

    @Test
    void whatIsSavedLoadsBackInAnotherDaemon() throws Exception {
        save(files().open(TARGET, 3), HELD);
        assertTrue(Files.isRegularFile(file()));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file().getParent())));
        files.close();
        ReservationState loaded =
                new ReservationFiles(dataDir).open(TARGET.toUpperCase(), 3).load();
        assertEquals(HELD, loaded, "the same state, for the target name in any case");
    }

    @Test
    void aSaveReplacesTheFileWhole() throws Exception {
        ReservationStore store = files().open(TARGET, 3);
        save(store, HELD);
        ReservationState released = new ReservationState(true, 7, HELD.registrations(), 0, null);
        save(store, released);
        assertEquals(released, store.load());
        try (var left = Files.list(file().getParent())) {
            assertEquals(List.of(file()), left.toList(), "no temporary file left beside it");
        }
    }

    @Test
    void noFileMeansNothingSaved() throws Exception {
        assertNull(files().open(TARGET, 3).load());
    }

    @Test
    void turningAptplOffRemovesTheFile() throws Exception {
        ReservationStore store = files().open(TARGET, 3);
        save(store, HELD);
        save(store, new ReservationState(false, 9, HELD.registrations(), 5, A));
        assertFalse(Files.exists(file()));
        assertNull(store.load());
    }

    @Test
    void aCorruptFileIsRefusedNamingIt() throws Exception {
        Files.createDirectories(file().getParent());
        for (String text : List.of(
                "{\"format\": 1, \"target\": ",
                "[]",
                "{\"format\": 2}",
                "{\"format\": 1, \"target\": \"" + TARGET + "\", \"lun\": 4, \"aptpl\": true, \"generation\": 0,"
                        + " \"registrations\": [], \"reservation\": null}",
                "{\"format\": 1, \"target\": \"" + TARGET + "\", \"lun\": 3, \"aptpl\": true, \"generation\": 0,"
                        + " \"registrations\": [{\"initiator\": \"iqn.x\", \"isid\": \"0x1\", \"tpgt\": 1,"
                        + " \"key\": \"12\"}], \"reservation\": null}",
                "{\"format\": 1, \"target\": \"" + TARGET + "\", \"lun\": 3, \"aptpl\": true, \"generation\": 0,"
                        + " \"registrations\": [], \"reservation\": {\"type\": 1, \"initiator\": \"iqn.x\","
                        + " \"isid\": \"0x1\", \"tpgt\": 1}}")) {
            Files.writeString(file(), text, StandardCharsets.UTF_8);
            IOException e = assertThrows(
                    IOException.class,
                    () -> new ReservationFiles(dataDir).open(TARGET, 3).load(),
                    text);
            assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
            assertTrue(e.getMessage().contains("corrupt"), e.getMessage());
        }
    }

    @Test
    void discardingTheLunRemovesItsFileAndRefusesLaterSaves() throws Exception {
        ReservationStore store = files().open(TARGET, 3);
        save(store, HELD);
        save(files.open(TARGET, 4), HELD);
        files.discard(TARGET, 3);
        assertFalse(Files.exists(file()));
        assertTrue(Files.isDirectory(file().getParent()), "LUN 4 keeps the target's directory");
        assertThrows(IOException.class, () -> save(store, HELD), "a command of the removed LUN still saving");
        assertFalse(Files.exists(file()));
        files.discard(TARGET, 4);
        assertFalse(Files.exists(file().getParent()), "the last LUN takes the target's directory with it");
    }

    @Test
    void aFileNoLunTookUpIsReportedAndKept() throws Exception {
        save(files().open(TARGET, 3), HELD);
        files.close();
        Logger logger = (Logger) LoggerFactory.getLogger(ReservationFiles.class);
        ListAppender<ILoggingEvent> seen = new ListAppender<>();
        seen.start();
        logger.addAppender(seen);
        try {
            ReservationFiles restarted = files();
            restarted.open(TARGET, 4);
            restarted.warnAboutUnclaimed();
            assertEquals(1, seen.list.size(), seen.list.toString());
            assertTrue(
                    seen.list.get(0).getFormattedMessage().startsWith(file().toString()),
                    seen.list.get(0).getFormattedMessage());
            restarted.open(TARGET, 3);
            restarted.warnAboutUnclaimed();
            assertEquals(1, seen.list.size(), "taken up now: " + seen.list);
        } finally {
            logger.detachAppender(seen);
        }
        assertTrue(Files.exists(file()), "kept");
    }
}
