package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A LUN grown by the admin API: the config file's size rules and messages, and only ever larger. */
class LunDefinitionTest {
    private static final LunDefinition LUN = new LunDefinition(
            3,
            BackingType.FILE,
            Path.of("/data/lun3.img"),
            16L << 20,
            4096,
            "S3",
            new FaultInjection(Duration.ZERO, 2, Long.MAX_VALUE),
            LunDefinition.FROM_DEVICE,
            false,
            LunDefinition.NO_THRESHOLD,
            null);

    @Test
    void grownKeepsEverythingButTheSize() {
        LunDefinition grown = LUN.grownTo(32L << 20);
        assertEquals(
                new LunDefinition(
                        3,
                        BackingType.FILE,
                        Path.of("/data/lun3.img"),
                        32L << 20,
                        4096,
                        "S3",
                        LUN.faults(),
                        LunDefinition.FROM_DEVICE,
                        false,
                        LunDefinition.NO_THRESHOLD,
                        null),
                grown);
        assertEquals((32L << 20) / 4096, grown.blockCount());
    }

    @Test
    void aSizeTheConfigFileWouldRefuseOrNoLargerIsRefused() {
        assertEquals(
                "20972032 bytes is not a multiple of block-size 4096",
                assertThrows(IllegalArgumentException.class, () -> LUN.grownTo((20L << 20) + 512))
                        .getMessage());
        assertEquals(
                "size must be greater than 0",
                assertThrows(IllegalArgumentException.class, () -> LUN.grownTo(0))
                        .getMessage());
        assertEquals(
                "16777216 bytes is not larger than the LUN's 16777216 bytes (a LUN only grows: shrinking would "
                        + "cut off data)",
                assertThrows(IllegalArgumentException.class, () -> LUN.grownTo(16L << 20))
                        .getMessage());
        assertThrows(IllegalArgumentException.class, () -> LUN.grownTo(8L << 20));
    }

    @Test
    void aBlockDeviceLunIsNotGrownHereAndHasNoBlockCountOfItsOwn() {
        LunDefinition device = new LunDefinition(
                1,
                BackingType.BLOCK,
                Path.of("/dev/vg/lv"),
                LunDefinition.FROM_DEVICE,
                LunDefinition.FROM_DEVICE,
                null);
        assertEquals(
                "LUN 1 is the block device /dev/vg/lv, whose size is the device's: grow the device (lvextend, zfs"
                        + " set volsize), then remove the LUN and add it again",
                assertThrows(IllegalArgumentException.class, () -> device.grownTo(1L << 30))
                        .getMessage());
        assertThrows(IllegalStateException.class, device::blockCount);
    }
}
