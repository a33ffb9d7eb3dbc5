package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One backing file, one user: the second open is refused naming the holder, and closing lets the next one in. */
class ExclusiveUseTest {
    private static final long SIZE = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void aSecondOpenOfTheSameFileIsRefusedNamingTheHolderUntilTheFirstCloses() throws IOException {
        Path p = dir.resolve("lun.img");
        BackingFile first = BackingFile.open(p, SIZE, ProcessUser.uid());
        try {
            BackingInUseException e =
                    assertThrows(BackingInUseException.class, () -> BackingFile.open(p, SIZE, ProcessUser.uid()));
            assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
            assertTrue(
                    e.getMessage().contains("process " + ProcessHandle.current().pid() + " (this daemon"),
                    e.getMessage());
        } finally {
            first.close();
        }
        BackingFile again = BackingFile.open(p, SIZE, ProcessUser.uid());
        again.close();
    }

    @Test
    void theHolderIsTheFlockLineOfTheInodeNotAWaiterOrAnotherLock() {
        List<String> locks = List.of(
                "1: POSIX  ADVISORY  WRITE 111 00:1a:77 0 EOF",
                "2: FLOCK  ADVISORY  WRITE 222 00:1b:77 0 EOF",
                "3: FLOCK  ADVISORY  WRITE 333 00:1a:77 0 EOF",
                "3: -> FLOCK  ADVISORY  WRITE 444 00:1a:77 0 EOF");
        assertEquals(333L, ExclusiveUse.flockHolder(locks, 0, 0x1a, 77));
        assertNull(ExclusiveUse.flockHolder(locks, 0, 0x1a, 78));
    }

    @Test
    void deviceNumbersAreDecodedAsGlibcEncodesThem() {
        long dev = (259L << 8) & 0xfff00 | 5; // major 259, minor 5, small form
        assertEquals(259, ExclusiveUse.major(dev));
        assertEquals(5, ExclusiveUse.minor(dev));
        long big = (0x1234L & ~0xfffL) << 32 | (0x234L << 8) | (0x56789L & ~0xffL) << 12 | 0x89;
        assertEquals(0x1234, ExclusiveUse.major(big));
        assertEquals(0x56789, ExclusiveUse.minor(big));
    }
}
