package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.B;
import static io.numaiscsi.scsi.Harness.cdb;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.ArrayDeque;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** SANITIZE: the service actions, their CDB and parameter checks, and the unit while one runs or after one failed. */
class SanitizeTest {
    private static final int BS = 512;
    private static final long SIZE = 3L << 20; // three overwrite chunks

    /** A RAM disk whose write completions wait until the test lets them go; writes fail on demand. */
    private static final class HeldDevice extends RamDelegate {
        final ArrayDeque<Runnable> held = new ArrayDeque<>();
        boolean failWrites;

        HeldDevice() {
            super(new RamBlockDevice(SIZE, BS));
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            if (failWrites) {
                held.add(() -> done.ioComplete(IoStatus.MEDIUM_ERROR));
                return;
            }
            ram.write(offset, src, fua, s -> held.add(() -> done.ioComplete(s)));
        }

        /** Lets one completion go (the next chunk's write may queue another). */
        void step() {
            held.poll().run();
        }

        void drain() {
            while (!held.isEmpty()) {
                step();
            }
        }
    }

    private final Harness h = new Harness(BS, SIZE, 0);

    private static byte[] sanitize(int flagsAndAction, int parameterListLength) {
        byte[] c = new byte[10];
        c[0] = 0x48;
        c[1] = (byte) flagsAndAction;
        c[7] = (byte) (parameterListLength >>> 8);
        c[8] = (byte) parameterListLength;
        return c;
    }

    /** OVERWRITE parameter list: flags byte (INVERT, TEST, OVERWRITE COUNT), pattern length, pattern. */
    private static byte[] overwriteList(int flags, int patternLength, byte[] pattern) {
        byte[] p = new byte[4 + pattern.length];
        p[0] = (byte) flags;
        p[2] = (byte) (patternLength >>> 8);
        p[3] = (byte) patternLength;
        System.arraycopy(pattern, 0, p, 4, pattern.length);
        return p;
    }

    private static byte[] repeated(byte[] pattern, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = pattern[i % pattern.length];
        }
        return b;
    }

    private byte[] readBlock(Harness harness, long lba) {
        return harness.good(A, 0, Harness.read10(lba, 1), null);
    }

    private void fill(Harness harness, long lba, int blocks) {
        harness.good(A, 0, Harness.write10(lba, blocks), Harness.pattern(blocks * BS, 7));
    }

    // ---- REPORT SUPPORTED OPERATION CODES and VPD ----

    @Test
    void reportsOverwriteBlockEraseAndExitFailureModeButNoCryptographicErase() {
        for (int action = 0; action < 0x20; action++) {
            byte[] c = cdb("a3 0c 02 48 0000 00000100 00 00");
            c[5] = (byte) action;
            byte[] one = h.good(A, 0, c, null);
            boolean supported = action == 0x01 || action == 0x02 || action == 0x1F;
            assertEquals(supported ? 0x03 : 0x01, one[1] & 0x07, "SUPPORT of service action " + action);
            if (supported) {
                assertEquals(10, Cdb.u16(one, 2), "CDB length");
                assertEquals(0xA0 | action, one[5] & 0xFF, "usage map byte 1: IMMED, AUSE, the service action");
            }
        }
    }

    @Test
    void blockDeviceCharacteristicsSayReadsAfterBlockEraseSucceedAndNoCryptographicErase() {
        byte[] page = h.good("12 01 b1 00 40 00");
        assertEquals(0x40, page[7] & 0xF0, "WABEREQ 01b, WACEREQ 00b");
    }

    /** A store that cannot tell deallocated blocks from mapped ones, as a block device. */
    private static final class UntrackedDevice extends RamDelegate {
        UntrackedDevice() {
            super(new RamBlockDevice(SIZE, BS));
        }

        @Override
        public boolean tracksAllocation() {
            return false;
        }
    }

    @Test
    void aStoreThatCannotShowDeallocationOffersNoBlockErase() {
        Harness untracked =
                new Harness(new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), new UntrackedDevice()));
        byte[] one = untracked.good(A, 0, cdb("a3 0c 02 48 0002 00000100 00 00"), null);
        assertEquals(0x01, one[1] & 0x07, "BLOCK ERASE not supported");
        assertEquals(
                0x03,
                untracked.good(A, 0, cdb("a3 0c 02 48 0001 00000100 00 00"), null)[1] & 0x07,
                "OVERWRITE still is");
        byte[] all = untracked.good(A, 0, cdb("a3 0c 00 00 0000 00010000 00 00"), null);
        for (int at = 4; at < 4 + Cdb.u32(all, 0); at += 8) {
            assertFalse((all[at] & 0xFF) == 0x48 && Cdb.u16(all, at + 2) == 0x02, "BLOCK ERASE listed");
        }
        assertEquals(
                Cdb.u32(all, 0) + 8,
                Cdb.u32(h.good(A, 0, cdb("a3 0c 00 00 0000 00010000 00 00"), null), 0),
                "one descriptor fewer than a unit that offers it, and the length says so");
        assertEquals(0, untracked.good("12 01 b1 00 40 00")[7] & 0xF0, "WABEREQ 00b");
        untracked.check(A, 0, sanitize(0x02, 0), null, SenseReason.INVALID_FIELD_IN_CDB);
    }

    // ---- CDB checks ----

    @Test
    void serviceActionsOtherThanOverwriteBlockEraseAndExitFailureModeAreInvalidFieldInCdb() {
        for (int action = 0; action < 0x20; action++) {
            if (action == 0x01 || action == 0x02 || action == 0x1F) {
                continue;
            }
            h.check(A, 0, sanitize(action, 0), null, SenseReason.INVALID_FIELD_IN_CDB);
        }
    }

    @Test
    void overwriteParameterListLengthMustHoldOneToBlockSizePatternBytes() {
        for (int length : new int[] {0, 1, 2, 3, 4, BS + 5, 0xFFFF}) {
            h.check(A, 0, sanitize(0x01, length), new byte[length], SenseReason.INVALID_FIELD_IN_CDB);
        }
    }

    @Test
    void blockEraseAndExitFailureModeTakeNoParameterList() {
        h.check(A, 0, sanitize(0x02, 8), new byte[8], SenseReason.INVALID_FIELD_IN_CDB);
        h.check(A, 0, sanitize(0x1F, 8), new byte[8], SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void reservedCdbBitsAndBytesAreInvalidFieldInCdb() {
        h.check(A, 0, sanitize(0x40 | 0x02, 0), null, SenseReason.INVALID_FIELD_IN_CDB);
        for (int i = 2; i <= 6; i++) {
            byte[] c = sanitize(0x02, 0);
            c[i] = (byte) i;
            h.check(A, 0, c, null, SenseReason.INVALID_FIELD_IN_CDB);
        }
    }

    // ---- OVERWRITE parameter list ----

    @Test
    void overwriteParameterErrorsAreInvalidFieldInParameterList() {
        byte[] block = new byte[BS];
        h.check(
                A,
                0,
                sanitize(0x01, BS + 4),
                overwriteList(0x00, BS, block),
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST); // OVERWRITE COUNT 0
        h.check(
                A,
                0,
                sanitize(0x01, BS + 4),
                overwriteList(0x01, 0, block),
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST); // no pattern
        h.check(
                A,
                0,
                sanitize(0x01, BS + 4),
                overwriteList(0x01, BS + 4, block),
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST); // pattern longer than a block
        h.check(
                A,
                0,
                sanitize(0x01, BS + 4),
                overwriteList(0x21, BS, block),
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST); // TEST
        h.check(
                A,
                0,
                sanitize(0x01, 8),
                overwriteList(0x01, 16, new byte[4]),
                SenseReason.PARAMETER_LIST_LENGTH_ERROR); // pattern longer than the list
    }

    // ---- the operations ----

    @Test
    void overwriteRepeatsThePatternFromTheStartOfEveryBlock() {
        long last = SIZE / BS - 1;
        fill(h, 0, 8);
        fill(h, last - 7, 8);
        byte[] pattern = {1, 2, 3, 4, 5, 6, 7};
        h.good(A, 0, sanitize(0x01, 11), overwriteList(0x01, 7, pattern));
        byte[] expected = repeated(pattern, BS);
        assertArrayEquals(expected, readBlock(h, 0));
        assertArrayEquals(expected, readBlock(h, 1234));
        assertArrayEquals(expected, readBlock(h, last));
        assertEquals(0, h.good("00 00 00 00 00 00").length, "TEST UNIT READY: GOOD again");
    }

    @Test
    void invertAlternatesThePatternBetweenPasses() {
        byte[] pattern = {(byte) 0xAA, 0x0F};
        h.good(A, 0, sanitize(0x01, 6), overwriteList(0x80 | 2, 2, pattern));
        byte[] inverted = {(byte) 0x55, (byte) 0xF0};
        assertArrayEquals(repeated(inverted, BS), readBlock(h, 100), "two passes: the second one inverted");
        h.good(A, 0, sanitize(0x01, 6), overwriteList(0x80 | 3, 2, pattern));
        assertArrayEquals(repeated(pattern, BS), readBlock(h, 100), "three passes: the last one as given");
        h.good(A, 0, sanitize(0x01, 6), overwriteList(2, 2, pattern));
        assertArrayEquals(repeated(pattern, BS), readBlock(h, 100), "no INVERT: every pass as given");
    }

    @Test
    void blockEraseDeallocatesEveryBlockSoItReadsZeros() {
        fill(h, 0, 16);
        fill(h, SIZE / BS - 16, 16);
        h.good(A, 0, sanitize(0x02, 0), null);
        assertArrayEquals(new byte[BS], readBlock(h, 0));
        assertArrayEquals(new byte[BS], readBlock(h, SIZE / BS - 1));
        byte[] status = h.good("9e 12 0000000000000000 00000100 00 00");
        assertEquals(4 + 16, Cdb.u32(status, 0), "one descriptor");
        assertEquals(SIZE / BS, Cdb.u32(status, 16), "covering the whole medium");
        assertEquals(1, status[20] & 0x0F, "deallocated");
    }

    @Test
    void exitFailureModeWithoutAFailureIsGood() {
        h.good(A, 0, sanitize(0x1F, 0), null);
    }

    // ---- access control ----

    @Test
    void anotherNexusReservationIsAConflict() {
        h.good(B, 0, cdb("16 00 00 00 00 00"), null);
        ScsiTask t = h.run(A, 0, sanitize(0x02, 0), null);
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, t.status());
        t.recycle();
        ScsiTask own = h.run(B, 0, sanitize(0x02, 0), null);
        assertEquals(ScsiStatus.GOOD, own.status(), "the holder may sanitize");
        own.recycle();
    }

    @Test
    void readOnlyUnitIsWriteProtected() {
        h.target.unit(0).readOnly(true);
        h.check(A, 0, sanitize(0x02, 0), null, SenseReason.WRITE_PROTECTED);
        h.check(A, 0, sanitize(0x01, 8), overwriteList(1, 4, new byte[4]), SenseReason.WRITE_PROTECTED);
    }

    @Test
    void softwareWriteProtectOfTheControlPageProtectsTheMediumForEveryNexus() {
        byte[] changeable = h.good("1a 08 4a 00 ff 00");
        assertEquals(0x08, changeable[4 + 4] & 0x08, "SWP is changeable");
        byte[] current = h.good("1a 08 0a 00 ff 00");
        byte[] page = Arrays.copyOfRange(current, 4, 4 + 12);
        page[4] |= 0x08;
        byte[] list = new byte[4 + 12];
        System.arraycopy(page, 0, list, 4, 12);
        h.good(B, 0, cdb("15 10 00 00 10 00"), list);
        h.check(A, 0, cdb("00 00 00 00 00 00"), null, SenseReason.MODE_PARAMETERS_CHANGED);
        assertEquals(0x80, h.good("1a 08 0a 00 ff 00")[2] & 0x80, "WP in the mode parameter header");
        h.check(A, 0, sanitize(0x02, 0), null, SenseReason.WRITE_PROTECTED);
        h.check(A, 0, Harness.write10(0, 1), new byte[BS], SenseReason.WRITE_PROTECTED);
        readBlock(h, 0);
        list[4 + 4] &= ~0x08;
        h.good(B, 0, cdb("15 10 00 00 10 00"), list);
        h.check(A, 0, cdb("00 00 00 00 00 00"), null, SenseReason.MODE_PARAMETERS_CHANGED);
        h.good(A, 0, sanitize(0x02, 0), null);
    }

    // ---- while it runs, and after it failed ----

    private static final class Listener implements ScsiTaskListener {
        int completions;

        @Override
        public void taskComplete(ScsiTask task) {
            completions++;
        }
    }

    private ScsiTask start(Harness harness, Listener l, byte[] c, byte[] data) {
        ScsiTask t = new ScsiTask(l);
        t.init(A, 0, Unpooled.wrappedBuffer(c), 0, c.length, data == null ? 0 : data.length, false, data != null);
        assertTrue(harness.target.prepare(t));
        if (data != null) {
            t.dataOut(PooledByteBufAllocator.DEFAULT.directBuffer(data.length).writeBytes(data));
        }
        harness.target.execute(t);
        return t;
    }

    private static int progress(byte[] fixedSense) {
        assertEquals(0x80, fixedSense[15] & 0x80, "SKSV");
        return Cdb.u16(fixedSense, 16);
    }

    @Test
    void commandsDuringTheOperationAreNotReadyWithProgressExceptInquiryReportLunsAndRequestSense() {
        HeldDevice device = new HeldDevice();
        Harness held = new Harness(new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device));
        Listener l = new Listener();
        ScsiTask s = start(held, l, sanitize(0x80 | 0x01, 8), overwriteList(1, 4, new byte[] {9, 9, 9, 9}));
        assertEquals(1, l.completions, "IMMED: GOOD at once");
        assertEquals(ScsiStatus.GOOD, s.status());
        s.recycle();

        ScsiTask tur = held.run(A, 0, cdb("00 00 00 00 00 00"), null);
        Harness.assertSense(tur, SenseReason.SANITIZE_IN_PROGRESS);
        assertEquals(0, progress(tur.senseBuffer()), "nothing written yet");
        tur.recycle();
        device.step();
        ScsiTask read = held.run(A, 0, Harness.read10(0, 1), null);
        Harness.assertSense(read, SenseReason.SANITIZE_IN_PROGRESS);
        assertEquals(0x10000 / 3, progress(read.senseBuffer()), "one chunk of three");
        read.recycle();
        held.check(A, 0, sanitize(0x02, 0), null, SenseReason.SANITIZE_IN_PROGRESS);
        held.good(A, 0, cdb("12 00 00 00 60 00"), null);
        held.good(A, 0, cdb("a0 00 00 00 00 00 00 00 01 00 00 00"), null);
        byte[] sense = held.good(A, 0, cdb("03 00 00 00 12 00"), null);
        assertEquals(0x02, sense[2] & 0x0F, "REQUEST SENSE: NOT READY");
        assertEquals(0x041B, Cdb.u16(sense, 12), "SANITIZE IN PROGRESS");
        assertTrue(progress(sense) > 0);

        device.drain();
        held.good("00 00 00 00 00 00");
        assertArrayEquals(repeated(new byte[] {9}, BS), held.good(A, 0, Harness.read10(0, 1), null));
    }

    @Test
    void withoutImmedTheCommandEndsWithTheOperationAndAnAbortOrResetDoesNotStopIt() {
        HeldDevice device = new HeldDevice();
        Harness held = new Harness(new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device));
        Listener l = new Listener();
        ScsiTask s = start(held, l, sanitize(0x01, 8), overwriteList(1, 4, new byte[] {5, 5, 5, 5}));
        device.step();
        assertEquals(0, l.completions, "IMMED 0: no status before the operation ends");
        held.good(B, 0, cdb("12 00 00 00 60 00"), null);
        held.target.logicalUnitReset(0, B);
        s.abort();
        device.step();
        assertEquals(1, l.completions, "the aborted command ends");
        assertEquals(ScsiStatus.TASK_ABORTED, s.status());
        assertEquals(0, held.target.unit(0).executing(), "and leaves the task set");
        held.check(B, 0, cdb("00 00 00 00 00 00"), null, SenseReason.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
        held.check(B, 0, cdb("00 00 00 00 00 00"), null, SenseReason.SANITIZE_IN_PROGRESS);
        device.drain();
        held.good(B, 0, cdb("00 00 00 00 00 00"), null);
        assertArrayEquals(repeated(new byte[] {5}, BS), held.good(B, 0, Harness.read10(SIZE / BS - 1, 1), null));
        s.recycle();

        held.check(A, 0, cdb("00 00 00 00 00 00"), null, SenseReason.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
        ScsiTask waited = start(held, l, sanitize(0x01, 8), overwriteList(1, 4, new byte[] {6, 6, 6, 6}));
        device.drain();
        assertEquals(2, l.completions);
        assertEquals(ScsiStatus.GOOD, waited.status(), "GOOD after the last block and the flush");
        waited.recycle();
    }

    @Test
    void aFailedOperationLeavesTheFailureStateThatOnlyAuseLetsExitFailureModeClear() {
        HeldDevice device = new HeldDevice();
        Harness held = new Harness(new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device));
        Listener l = new Listener();
        device.failWrites = true;
        ScsiTask s = start(held, l, sanitize(0x01, 8), overwriteList(1, 4, new byte[4]));
        device.drain();
        Harness.assertSense(s, SenseReason.SANITIZE_COMMAND_FAILED);
        s.recycle();
        held.check(A, 0, Harness.read10(0, 1), null, SenseReason.SANITIZE_COMMAND_FAILED);
        held.good("12 00 00 00 60 00");
        held.check(A, 0, sanitize(0x1F, 0), null, SenseReason.INVALID_FIELD_IN_CDB);

        device.failWrites = false;
        ScsiTask again = start(held, l, sanitize(0x01, 8), overwriteList(1, 4, new byte[4]));
        device.drain();
        assertEquals(ScsiStatus.GOOD, again.status(), "a sanitize that succeeds ends the failure state");
        again.recycle();
        held.good(A, 0, Harness.read10(0, 1), null);

        device.failWrites = true;
        ScsiTask withAuse = start(held, l, sanitize(0x20 | 0x01, 8), overwriteList(1, 4, new byte[4]));
        device.drain();
        withAuse.recycle();
        held.check(A, 0, Harness.write10(0, 1), new byte[BS], SenseReason.SANITIZE_COMMAND_FAILED);
        held.good(A, 0, sanitize(0x1F, 0), null);
        device.failWrites = false;
        held.good(A, 0, Harness.read10(0, 1), null);
    }

    @Test
    void progressSenseInDescriptorFormatCarriesTheSenseKeySpecificDescriptor() {
        byte[] dst = new byte[SenseData.MAX_LENGTH];
        int length = SenseData.encodeProgress(dst, SenseReason.SANITIZE_IN_PROGRESS, true, 0x1234);
        assertEquals(16, length);
        assertEquals(0x02, dst[8]);
        assertEquals(0x80, dst[12] & 0xFF);
        assertEquals(0x1234, Cdb.u16(dst, 13));
    }
}
