package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FaultInjectingBlockDeviceTest {
    private final RamBlockDevice ram = new RamBlockDevice(1 << 20, 512);

    private static ByteBuf block(int seed) {
        ByteBuf b = Unpooled.buffer(512);
        for (int i = 0; i < 512; i++) {
            b.writeByte(i + seed);
        }
        return b;
    }

    private static IoStatus write(FaultInjectingBlockDevice d, long offset, int seed) throws InterruptedException {
        Completion c = new Completion();
        d.write(offset, block(seed), false, c);
        return c.await();
    }

    @Test
    void withoutFaultsItPassesThroughInline() throws InterruptedException {
        FaultInjectingBlockDevice d =
                new FaultInjectingBlockDevice(ram, Duration.ZERO, 0, FaultInjectingBlockDevice.UNLIMITED);
        assertEquals(512, d.blockSize());
        assertEquals(2048, d.blockCount());
        Completion w = new Completion();
        d.write(4096, block(7), true, w);
        assertSame(Thread.currentThread(), w.thread, "no latency: completes on the caller's thread as the store does");
        assertEquals(IoStatus.OK, w.await());
        ByteBuf dst = Unpooled.buffer(512);
        Completion r = new Completion();
        d.read(4096, 512, dst, r);
        assertEquals(IoStatus.OK, r.await());
        assertEquals(block(7), dst);
        assertTrue(d.isMapped(4096));
    }

    @Test
    void latencyDelaysEveryOperationOffTheCallersThread() throws InterruptedException {
        FaultInjectingBlockDevice d =
                new FaultInjectingBlockDevice(ram, Duration.ofMillis(150), 0, FaultInjectingBlockDevice.UNLIMITED);
        long t0 = System.nanoTime();
        Completion w = new Completion();
        d.write(0, block(1), false, w);
        Completion f = new Completion();
        d.flush(f);
        Completion u = new Completion();
        d.unmap(512, 512, u);
        assertEquals(IoStatus.OK, w.await());
        assertEquals(IoStatus.OK, f.await());
        assertEquals(IoStatus.OK, u.await());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms >= 150, "completed after " + ms + " ms");
        assertNotSame(Thread.currentThread(), w.thread);
        assertEquals("fault-injection-timer", w.thread.getName());
    }

    @Test
    void everyNthTransferIsAMediumErrorThatLeavesTheMediumAlone() throws InterruptedException {
        FaultInjectingBlockDevice d =
                new FaultInjectingBlockDevice(ram, Duration.ZERO, 3, FaultInjectingBlockDevice.UNLIMITED);
        List<IoStatus> got = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            got.add(write(d, i * 512L, i));
        }
        assertEquals(
                List.of(
                        IoStatus.OK,
                        IoStatus.OK,
                        IoStatus.MEDIUM_ERROR,
                        IoStatus.OK,
                        IoStatus.OK,
                        IoStatus.MEDIUM_ERROR),
                got);
        assertTrue(ram.isMapped(512), "second write reached the store");
        assertTrue(!ram.isMapped(1024), "the failed third write did not");
    }

    @Test
    void writesRunOutOfSpaceAfterTheLimitAndOnDemand() throws InterruptedException {
        FaultInjectingBlockDevice d = new FaultInjectingBlockDevice(ram, Duration.ZERO, 0, 1024);
        assertEquals(IoStatus.OK, write(d, 0, 1));
        assertEquals(IoStatus.OK, write(d, 512, 2));
        assertEquals(IoStatus.NO_SPACE, write(d, 1024, 3));
        Completion r = new Completion();
        d.read(0, 512, Unpooled.buffer(512), r);
        assertEquals(IoStatus.OK, r.await(), "reads still work on a full disk");

        FaultInjectingBlockDevice onDemand =
                new FaultInjectingBlockDevice(ram, Duration.ZERO, 0, FaultInjectingBlockDevice.UNLIMITED);
        onDemand.noSpace(true);
        assertEquals(IoStatus.NO_SPACE, write(onDemand, 0, 1));
        onDemand.noSpace(false);
        assertEquals(IoStatus.OK, write(onDemand, 0, 1));
    }

    @Test
    void closedStoreBehindTheLatencyAnswersUnavailable() throws InterruptedException {
        FaultInjectingBlockDevice d =
                new FaultInjectingBlockDevice(ram, Duration.ofMillis(50), 0, FaultInjectingBlockDevice.UNLIMITED);
        Completion w = new Completion();
        d.write(0, block(1), false, w);
        d.close();
        assertEquals(IoStatus.UNAVAILABLE, w.await());
    }

    @Test
    void rejectsNonsense() {
        assertThrows(
                IllegalArgumentException.class, () -> new FaultInjectingBlockDevice(ram, Duration.ofMillis(-1), 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new FaultInjectingBlockDevice(ram, Duration.ZERO, -1, 0));
    }
}
