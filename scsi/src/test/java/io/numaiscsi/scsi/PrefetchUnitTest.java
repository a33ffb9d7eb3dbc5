package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.cdb;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * PRE-FETCH: CONDITION MET when the whole range went into the device's cache, GOOD when the device has none or the
 * range is larger than one PRE-FETCH may bring in (then the start of it is read), IMMED answers before the read.
 */
class PrefetchUnitTest {
    private static final long LIMIT = 64 * 512;

    /** A device with a cache of its own: records each prefetch and completes it when asked. */
    private static final class CachingDevice extends RamDelegate {
        final List<long[]> prefetches = new ArrayList<>();
        final List<IoCompletion> pending = new ArrayList<>();

        CachingDevice() {
            super(new RamBlockDevice(8L << 20, 512));
        }

        @Override
        public long prefetchLimit() {
            return LIMIT;
        }

        @Override
        public void prefetch(long offset, long length, IoCompletion done) {
            prefetches.add(new long[] {offset, length});
            pending.add(done);
        }
    }

    private final CachingDevice device = new CachingDevice();
    private final Harness h = new Harness(new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device));

    private int status(ScsiTask t) {
        int s = t.status();
        t.recycle();
        return s;
    }

    @Test
    void aRangeThatFitsIsConditionMetOnceItIsInTheCache() {
        ScsiTask t = h.start(A, 0, cdb("34 00 00000010 00 0020 00"), null); // PRE-FETCH(10) LBA 16, 32 blocks
        assertEquals(1, device.prefetches.size());
        assertEquals(
                List.of(16L * 512, 32L * 512),
                List.of(device.prefetches.get(0)[0], device.prefetches.get(0)[1]));
        assertEquals(0, h.completions, "no status before the blocks are in");
        device.pending.get(0).ioComplete(IoStatus.OK);
        assertEquals(ScsiStatus.CONDITION_MET, status(t));
    }

    @Test
    void aRangeLargerThanTheLimitReadsItsStartAndIsGood() {
        ScsiTask t = h.start(A, 0, cdb("90 00 0000000000000000 00000100 00 00"), null); // PRE-FETCH(16) 256 blocks
        assertEquals(LIMIT, device.prefetches.get(0)[1], "as much as one PRE-FETCH may bring in");
        device.pending.get(0).ioComplete(IoStatus.OK);
        assertEquals(ScsiStatus.GOOD, status(t));
    }

    @Test
    void immedAnswersFirstAndAFailedReadIsAMediumError() {
        ScsiTask t = h.run(A, 0, cdb("34 02 00000000 00 0008 00"), null);
        assertEquals(ScsiStatus.CONDITION_MET, status(t), "IMMED: the range fits, status at once");
        assertEquals(1, device.prefetches.size(), "and the read goes on behind it");
        device.pending.get(0).ioComplete(IoStatus.OK);

        ScsiTask failed = h.start(A, 0, cdb("34 00 00000000 00 0008 00"), null);
        device.pending.get(1).ioComplete(IoStatus.MEDIUM_ERROR);
        assertEquals(ScsiStatus.CHECK_CONDITION, failed.status());
        assertEquals(3, SenseData.senseKey(failed.senseBuffer()), "MEDIUM ERROR");
        failed.recycle();
    }

    @Test
    void aDeviceWithoutACacheAnswersGood() {
        Harness plain = new Harness();
        assertEquals(ScsiStatus.GOOD, status(plain.run(A, 0, cdb("34 00 00000000 00 0008 00"), null)));
        assertEquals(
                ScsiStatus.GOOD,
                status(plain.run(A, 0, cdb("90 00 0000000000000000 00000000 00 00"), null)),
                "0 blocks: to the end of the medium");
    }
}
