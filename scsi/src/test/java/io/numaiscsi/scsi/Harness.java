package io.numaiscsi.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** A target over RAM disks plus helpers to run one command to completion. */
final class Harness implements ScsiTaskListener {
    static final String TARGET = "iqn.2024-01.io.numaiscsi:disk1";
    static final ItNexus A = new ItNexus("iqn.1994-05.com.redhat:alpha", 0x23D000000001L, TARGET, 1);
    static final ItNexus B = new ItNexus("iqn.1994-05.com.redhat:beta", 0x23D000000002L, TARGET, 1);

    final List<RamBlockDevice> devices = new ArrayList<>();
    final ScsiTarget target;
    int completions;

    Harness() {
        this(512, 8L << 20, 0, 1);
    }

    Harness(int blockSize, long size, int... luns) {
        List<LogicalUnit> units = new ArrayList<>();
        for (int lun : luns) {
            RamBlockDevice d = new RamBlockDevice(size, blockSize);
            devices.add(d);
            units.add(new LogicalUnit(lun, LunIdentity.derive(TARGET, lun, null), d));
        }
        target = new ScsiTarget(TARGET, units, PooledByteBufAllocator.DEFAULT);
    }

    /** A target over the given units (their devices are the caller's). */
    Harness(LogicalUnit... units) {
        this(TargetPortGroups.NONE, units);
    }

    /** A target over the given units whose port is in {@code groups} (ALUA). */
    Harness(TargetPortGroups groups, LogicalUnit... units) {
        target = new ScsiTarget(TARGET, List.of(units), PooledByteBufAllocator.DEFAULT, groups);
    }

    @Override
    public void taskComplete(ScsiTask task) {
        completions++;
    }

    static byte[] cdb(String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }

    /** Runs one command; the caller recycles the returned task. */
    ScsiTask run(ItNexus nexus, int lun, byte[] cdb, byte[] dataOut) {
        int before = completions;
        ScsiTask t = start(nexus, lun, cdb, dataOut);
        if (executed) {
            assertEquals(before + 1, completions, "listener called exactly once");
        }
        return t;
    }

    private boolean executed;

    /** As {@link #run}, for a command whose device completes later (when the test says). */
    ScsiTask start(ItNexus nexus, int lun, byte[] cdb, byte[] dataOut) {
        ScsiTask t = new ScsiTask(this);
        ByteBuf c = Unpooled.wrappedBuffer(cdb);
        t.init(
                nexus,
                lun,
                c,
                0,
                cdb.length,
                dataOut == null ? 65536 : dataOut.length,
                dataOut == null,
                dataOut != null);
        executed = false;
        if (!target.prepare(t)) {
            return t;
        }
        if (t.dataOutLength() > 0) {
            byte[] d = dataOut == null ? new byte[0] : dataOut;
            ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(d.length);
            buf.writeBytes(d);
            t.dataOut(buf);
        }
        executed = true;
        target.execute(t);
        return t;
    }

    ScsiTask run(int lun, String cdbHex) {
        return run(A, lun, cdb(cdbHex), null);
    }

    /** Runs a command expecting GOOD and returns its data-in bytes (empty when none). */
    byte[] good(ItNexus nexus, int lun, byte[] cdb, byte[] dataOut) {
        ScsiTask t = run(nexus, lun, cdb, dataOut);
        ByteBuf in = t.dataIn();
        ByteBuf out = t.dataOut;
        try {
            assertEquals(
                    ScsiStatus.GOOD,
                    t.status(),
                    () -> "status of " + HexFormat.of().formatHex(cdb) + " sense "
                            + HexFormat.of().formatHex(t.senseBuffer(), 0, t.senseLength()));
            return t.dataIn() == null ? new byte[0] : ByteBufUtil.getBytes(t.dataIn());
        } finally {
            t.recycle();
            assertTrue(in == null || in.refCnt() == 0, "recycle releases data-in");
            assertTrue(out == null || out.refCnt() == 0, "recycle releases data-out");
        }
    }

    byte[] good(String cdbHex) {
        return good(A, 0, cdb(cdbHex), null);
    }

    /** Runs a command expecting CHECK CONDITION with the given reason. */
    void check(ItNexus nexus, int lun, byte[] cdb, byte[] dataOut, SenseReason expected) {
        ScsiTask t = run(nexus, lun, cdb, dataOut);
        try {
            assertSense(t, expected);
        } finally {
            t.recycle();
        }
    }

    void check(String cdbHex, SenseReason expected) {
        check(A, 0, cdb(cdbHex), null, expected);
    }

    static void assertSense(ScsiTask t, SenseReason expected) {
        assertEquals(expected.status(), t.status(), "status");
        if (expected.hasSense()) {
            assertTrue(t.senseLength() >= 8);
            assertEquals(expected.senseKey(), SenseData.senseKey(t.senseBuffer()), "sense key");
            assertEquals(
                    expected.asc() << 8 | expected.ascq(),
                    SenseData.ascAscq(t.senseBuffer()),
                    () -> "ASC/ASCQ, expected " + expected);
        }
    }

    static byte[] write10(long lba, int blocks) {
        byte[] c = new byte[10];
        c[0] = 0x2A;
        Cdb.putInt(c, 2, (int) lba);
        c[7] = (byte) (blocks >>> 8);
        c[8] = (byte) blocks;
        return c;
    }

    static byte[] read10(long lba, int blocks) {
        byte[] c = write10(lba, blocks);
        c[0] = 0x28;
        return c;
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }
}
