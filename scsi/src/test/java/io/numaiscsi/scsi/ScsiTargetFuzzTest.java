package io.numaiscsi.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The CDB decoder and command set ({@link ScsiTarget#prepare} / {@link ScsiTarget#execute}) on two small RAM LUNs,
 * fed sequences of arbitrary CDBs, transfer lengths, data-out bytes and task-management events from two I_T nexuses.
 * Invariants: no exception; prepare either proceeds or ends with a failure status and valid sense; execute calls the
 * listener exactly once with a SAM status the transport knows; data-in never exceeds what was allocated for; nothing
 * is allocated beyond the LUN size / the response limit; every buffer is released by {@link ScsiTask#recycle()}.
 *
 * <p>Input layout: byte 0 bit 0 = 4096-byte blocks; then records {@code [ctrl][cdb length][cdb][EDTL u24][data]}:
 * ctrl bit 0 nexus B, bits 1-2 LUN (0, 1, 9 = missing, 0), bit 3 R, bit 4 W, bit 5 abort before execute, bit 6
 * LOGICAL UNIT RESET afterwards, bit 7 I_T nexus loss afterwards.
 */
class ScsiTargetFuzzTest {
    static final String TARGET = "iqn.2024-01.io.numaiscsi:fuzz";
    static final ItNexus A = new ItNexus("iqn.1994-05.com.redhat:alpha", 0x23D000000001L, TARGET, 1);
    static final ItNexus B = new ItNexus("iqn.1994-05.com.redhat:beta", 0x23D000000002L, TARGET, 1);
    static final long LUN_BYTES = 1L << 20;
    static final int MAX_CDB = 40;
    static final int SEEDED_INPUTS = 1500;
    /** Largest single allocation allowed: COMPARE AND WRITE over the whole LUN needs twice its size. */
    static final long ALLOCATION_BOUND = 2 * LUN_BYTES;

    private static final int[] OPCODES = {
        0x00, 0x03, 0x08, 0x0a, 0x12, 0x15, 0x16, 0x17, 0x1a, 0x1b, 0x1d, 0x25, 0x28, 0x2a, 0x2e, 0x2f, 0x35, 0x41,
        0x42, 0x55, 0x56, 0x57, 0x5a, 0x5e, 0x5f, 0x7f, 0x88, 0x89, 0x8a, 0x8e, 0x8f, 0x91, 0x93, 0x9e, 0xa0, 0xa3,
        0xa8, 0xaa
    };

    @FuzzTest(maxDuration = "5m")
    void commands(byte[] input) {
        check(input);
    }

    @Test
    void seededInputs() {
        Random random = new Random(4096);
        for (int i = 0; i < SEEDED_INPUTS; i++) {
            check(plausibleInput(random));
        }
    }

    /** 1-6 commands with a known opcode, small LBAs and lengths (some mutated), and the data-out they ask for. */
    static byte[] plausibleInput(Random random) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(random.nextInt(4) == 0 ? 1 : 0);
        int commands = 1 + random.nextInt(6);
        for (int i = 0; i < commands; i++) {
            int op = OPCODES[random.nextInt(OPCODES.length)];
            int cdbLength = op < 0x20 ? 6 : op < 0x60 ? 10 : op < 0xa0 ? 16 : 12;
            if (op == 0x7f) {
                cdbLength = 32;
            }
            byte[] cdb = new byte[cdbLength];
            cdb[0] = (byte) op;
            for (int b = 1; b < cdbLength; b++) {
                int r = random.nextInt(10);
                cdb[b] = (byte) (r < 6 ? 0 : r < 8 ? random.nextInt(8) : random.nextInt(256));
            }
            int ctrl = random.nextInt(256) & ~0xe0 | (random.nextInt(8) == 0 ? 0x20 << random.nextInt(3) : 0);
            out.write(ctrl);
            out.write(cdbLength);
            out.write(cdb, 0, cdbLength);
            int edtl = random.nextInt(3) == 0 ? random.nextInt(1 << 16) : 512 * random.nextInt(9);
            out.write(edtl >>> 16);
            out.write(edtl >>> 8);
            out.write(edtl);
            byte[] data = new byte[random.nextInt(3) == 0 ? 0 : random.nextInt(2048)];
            random.nextBytes(data);
            out.write(data, 0, data.length);
        }
        return out.toByteArray();
    }

    /** A listener that counts completions. */
    private static final class Completions implements ScsiTaskListener {
        int count;

        @Override
        public void taskComplete(ScsiTask task) {
            count++;
        }
    }

    static void check(byte[] input) {
        if (input.length < 1) {
            return;
        }
        int blockSize = (input[0] & 1) != 0 ? 4096 : 512;
        TrackingAllocator alloc = new TrackingAllocator();
        List<LogicalUnit> units = List.of(
                new LogicalUnit(0, LunIdentity.derive(TARGET, 0, null), new RamBlockDevice(LUN_BYTES, blockSize)),
                new LogicalUnit(1, LunIdentity.derive(TARGET, 1, null), new RamBlockDevice(LUN_BYTES, 512)));
        ScsiTarget target = new ScsiTarget(TARGET, units, alloc);
        Completions completions = new Completions();
        ScsiTask task = new ScsiTask(completions);
        int at = 1;
        while (at + 2 <= input.length) {
            int ctrl = input[at] & 0xff;
            int cdbLength = 1 + (input[at + 1] & 0xff) % MAX_CDB;
            at += 2;
            byte[] cdb = new byte[cdbLength];
            int n = Math.min(cdbLength, input.length - at);
            System.arraycopy(input, at, cdb, 0, n);
            at += n;
            int edtl = 0;
            for (int i = 0; i < 3; i++) {
                edtl = edtl << 8 | (at < input.length ? input[at++] & 0xff : 0);
            }
            ItNexus nexus = (ctrl & 1) != 0 ? B : A;
            int lun = switch ((ctrl >>> 1) & 3) {
                case 1 -> 1;
                case 2 -> 9;
                default -> 0;
            };
            boolean readBit = (ctrl & 0x08) != 0;
            boolean writeBit = (ctrl & 0x10) != 0;
            task.init(nexus, lun, Unpooled.wrappedBuffer(cdb), 0, cdbLength, edtl, readBit, writeBit);
            String what = HexFormat.of().formatHex(cdb) + " EDTL " + edtl + " LUN " + lun;
            if (!target.prepare(task)) {
                assertFailed(task, what);
            } else {
                int dataOut = task.dataOutLength();
                assertTrue(dataOut >= 0 && dataOut <= ALLOCATION_BOUND, "data-out length " + dataOut + " for " + what);
                int collected = writeBit ? Math.min(edtl, dataOut) : 0;
                if (collected > 0) {
                    ByteBuf buf = alloc.directBuffer(collected, collected);
                    int fromInput = Math.max(0, Math.min(collected, input.length - at));
                    buf.writeBytes(input, at, fromInput);
                    buf.writeZero(collected - fromInput);
                    at += fromInput;
                    task.dataOut(buf);
                }
                if ((ctrl & 0x20) != 0) {
                    task.abort();
                }
                int before = completions.count;
                target.execute(task);
                assertEquals(before + 1, completions.count, "listener calls for " + what);
                int status = task.status();
                if (status == ScsiStatus.GOOD || status == ScsiStatus.CONDITION_MET) {
                    ByteBuf in = task.dataIn();
                    assertTrue(in == null || in.readableBytes() <= ALLOCATION_BOUND, "data-in for " + what);
                } else {
                    assertFailed(task, what);
                }
            }
            task.recycle();
            if ((ctrl & 0x40) != 0) {
                target.logicalUnitReset(lun, nexus);
            }
            if ((ctrl & 0x80) != 0) {
                target.nexusLost(nexus);
            }
        }
        alloc.assertAllReleased();
        assertTrue(alloc.largestRequest <= ALLOCATION_BOUND, "allocated " + alloc.largestRequest + " bytes");
    }

    private static void assertFailed(ScsiTask task, String what) {
        int status = task.status();
        switch (status) {
            case ScsiStatus.CHECK_CONDITION -> {
                int length = task.senseLength();
                assertTrue(length >= 8 && length <= SenseData.MAX_LENGTH, "sense length " + length + " for " + what);
                int responseCode = task.senseBuffer()[0] & 0x7f;
                assertTrue(responseCode == 0x70 || responseCode == 0x72, "sense response code " + responseCode);
                assertNotEquals(
                        0,
                        SenseData.senseKey(task.senseBuffer()) | SenseData.ascAscq(task.senseBuffer()),
                        "CHECK CONDITION without a reason for " + what);
            }
            case ScsiStatus.RESERVATION_CONFLICT, ScsiStatus.BUSY, ScsiStatus.TASK_SET_FULL, ScsiStatus.TASK_ABORTED ->
                assertEquals(0, task.senseLength(), "sense with status " + status);
            default -> fail("status 0x" + Integer.toHexString(status) + " for " + what);
        }
        assertTrue(task.dataIn() == null, "data-in on a failed command " + what);
    }

    /** Remembers every buffer handed out, to prove they were all released, and the largest request. */
    static final class TrackingAllocator extends AbstractByteBufAllocator {
        private final UnpooledByteBufAllocator delegate = new UnpooledByteBufAllocator(false);
        private final List<ByteBuf> buffers = new ArrayList<>();
        long largestRequest;

        TrackingAllocator() {
            super(false);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            return track(delegate.heapBuffer(initialCapacity, maxCapacity), initialCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            return track(delegate.directBuffer(initialCapacity, maxCapacity), initialCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }

        private ByteBuf track(ByteBuf buf, int initialCapacity) {
            buffers.add(buf);
            largestRequest = Math.max(largestRequest, initialCapacity);
            return buf;
        }

        void assertAllReleased() {
            for (ByteBuf b : buffers) {
                assertEquals(0, b.refCnt(), "leaked buffer of capacity " + b.capacity());
            }
        }
    }
}
