package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.blockdev.backstore.FileBlockDevice;
import io.numaiscsi.blockdev.backstore.IoUring;
import io.numaiscsi.config.DaemonSettings.BackingIo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** daemon.backing-io: threads by name, io_uring wherever this host grants rings under auto, and io_uring by name. */
class BackingIoChoiceTest {
    @TempDir
    Path dir;

    @Test
    void threadsByNameNeverGivesARing() throws Exception {
        BackingIoChoice choice = BackingIoChoice.resolve(BackingIo.THREADS);
        assertFalse(choice.ioUring());
        ExecutorService pool = Executors.newSingleThreadExecutor();
        FileBlockDevice d = FileBlockDevice.open(dir.resolve("t.img"), 1 << 20, 512, pool);
        try {
            choice.apply(d, Thread::new, "LUN 0");
            assertEquals("threads", d.backingIo());
        } finally {
            d.close();
            pool.shutdownNow();
        }
    }

    @Test
    void autoUsesIoUringWhereverARingCanBeCreated() throws Exception {
        String why = IoUring.unavailableReason();
        BackingIoChoice choice = BackingIoChoice.resolve(BackingIo.AUTO);
        assertEquals(why == null, choice.ioUring(), "io_uring unavailable here: " + why);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        FileBlockDevice d = FileBlockDevice.open(dir.resolve("a.img"), 1 << 20, 512, pool);
        try {
            choice.apply(
                    d,
                    r -> {
                        Thread t = new Thread(r, "test-reaper");
                        t.setDaemon(true);
                        return t;
                    },
                    "LUN 0");
            assertEquals(why == null ? "io_uring" : "threads", d.backingIo());
        } finally {
            d.close();
            pool.shutdownNow();
        }
    }

    @Test
    void ioUringByNameWhereItIsUnavailableStopsTheStartNamingTheKey() throws Exception {
        String why = IoUring.unavailableReason();
        if (why == null) {
            assertTrue(BackingIoChoice.resolve(BackingIo.IO_URING).ioUring());
            return;
        }
        IOException e = assertThrows(IOException.class, () -> BackingIoChoice.resolve(BackingIo.IO_URING));
        assertTrue(e.getMessage().startsWith("daemon.backing-io: io_uring is not available here"), e.getMessage());
    }
}
