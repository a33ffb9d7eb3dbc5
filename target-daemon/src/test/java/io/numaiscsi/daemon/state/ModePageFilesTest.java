package io.numaiscsi.daemon.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.scsi.ModePageStore;
import io.numaiscsi.scsi.SavedModePages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Saved mode parameters in one file per LUN: round trip, replaced whole, named when corrupt, gone with the LUN. */
class ModePageFilesTest {
    private static final String TARGET = "iqn.2026-11.io.numaiscsi:Disk0";

    @TempDir
    Path dataDir;

    private ModePageFiles files;

    @AfterEach
    void close() {
        if (files != null) {
            files.close();
        }
    }

    private static void save(ModePageStore store, SavedModePages pages) throws Exception {
        CompletableFuture<IOException> done = new CompletableFuture<>();
        store.save(pages, done::complete);
        assertNull(done.get(10, TimeUnit.SECONDS));
    }

    @Test
    void whatIsSavedIsLoadedByTheNextStoreAndNothingTemporaryIsLeft() throws Exception {
        files = new ModePageFiles(dataDir);
        ModePageStore store = files.open(TARGET, 3);
        assertTrue(store.persists());
        assertNull(store.load(), "nothing saved yet");
        save(store, new SavedModePages(false, true, false));
        save(store, new SavedModePages(false, false, true));
        Path file = files.fileOf(TARGET, 3);
        assertEquals(dataDir.resolve("mode-pages/iqn.2026-11.io.numaiscsi:disk0/lun-3.json"), file);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertFalse(Files.exists(DurableFiles.temporary(file)));
        files.close();
        files = new ModePageFiles(dataDir);
        assertEquals(
                new SavedModePages(false, false, true),
                files.open(TARGET.toUpperCase(), 3).load(),
                "the last save, whatever case the target name is spelled in");
    }

    @Test
    void aCorruptFileIsNamedAndARemovedLunLosesItsFile() throws Exception {
        files = new ModePageFiles(dataDir);
        Path file = files.fileOf(TARGET, 0);
        Files.createDirectories(file.getParent());
        for (String text : new String[] {
            "{",
            "[]",
            "{\"format\": 2}",
            "{\"format\": 1, \"write-cache\": \"no\","
                    + " \"descriptor-sense\": false, \"software-write-protect\": false}"
        }) {
            Files.writeString(file, text, StandardCharsets.UTF_8);
            IOException e =
                    assertThrows(IOException.class, () -> files.open(TARGET, 0).load(), text);
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
        save(files.open(TARGET, 0), SavedModePages.DEFAULTS);
        files.discard(TARGET, 0);
        assertFalse(Files.exists(file));
        assertNull(files.open(TARGET, 0).load());
    }
}
