package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.cdb;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * MODE SELECT with SP=1 saves the changeable parameters (WCE, D_SENSE, SWP) in the unit's store; MODE SENSE reports them as
 * saved (PS set) and, after a restart or a LUN reset, as current; WCE=0 makes every write FUA.
 */
class SavedModePagesTest {
    /** MODE SELECT(6), PF and SP, a 24-byte list: header and the caching page. */
    private static final String SELECT_SAVE = "15 11 00 00 18 00";

    private static final String SELECT_NO_SAVE = "15 10 00 00 18 00";
    private static final String SENSE_CACHING_CURRENT = "1a 08 08 00 ff 00";
    private static final String SENSE_CACHING_SAVED = "1a 08 c8 00 ff 00";

    /** Keeps what it is given; completes at once, or fails when told to. */
    private static final class MemoryStore implements ModePageStore {
        final List<SavedModePages> saves = new ArrayList<>();
        SavedModePages kept;
        boolean failing;

        @Override
        public boolean persists() {
            return true;
        }

        @Override
        public SavedModePages load() {
            return kept;
        }

        @Override
        public void save(SavedModePages pages, Consumer<IOException> done) {
            if (failing) {
                done.accept(new IOException("disk full"));
                return;
            }
            saves.add(pages);
            kept = pages;
            done.accept(null);
        }
    }

    /** Records the FUA flag of each write. */
    private static final class FuaDevice extends RamDelegate {
        final List<Boolean> fua = new ArrayList<>();

        FuaDevice() {
            super(new RamBlockDevice(8L << 20, 512));
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            this.fua.add(fua);
            super.write(offset, src, fua, done);
        }
    }

    private final MemoryStore store = new MemoryStore();
    private final FuaDevice device = new FuaDevice();

    private Harness unitWith(ModePageStore s) throws IOException {
        LogicalUnit unit = new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device);
        unit.modePageStore(s);
        return new Harness(unit);
    }

    /** Header (no block descriptor) and the caching page with WCE as given. */
    private static byte[] cachingList(boolean wce) {
        byte[] list = new byte[24];
        list[4] = 0x08;
        list[5] = 0x12;
        list[6] = (byte) (wce ? 0x04 : 0);
        return list;
    }

    /** Byte 0 (PS, page code) and byte 2 (WCE) of the caching page MODE SENSE(6) returned. */
    private static int[] caching(byte[] sense) {
        int at = 4 + (sense[3] & 0xFF);
        return new int[] {sense[at] & 0xFF, sense[at + 2] & 0xFF};
    }

    @Test
    void withoutAStoreSavingIsRefused() throws IOException {
        Harness h = unitWith(ModePageStore.NONE);
        h.check(A, 0, cdb(SELECT_SAVE), cachingList(false), SenseReason.SAVING_PARAMETERS_NOT_SUPPORTED);
        h.check(SENSE_CACHING_SAVED, SenseReason.SAVING_PARAMETERS_NOT_SUPPORTED);
        assertEquals(
                0x04, caching(h.good(SENSE_CACHING_CURRENT))[1], "WCE still on: the refused select changed nothing");
        assertEquals(0x08, caching(h.good(SENSE_CACHING_CURRENT))[0], "PS clear: nothing is saveable");
    }

    @Test
    void savedWriteCacheOffIsCurrentAfterARestartAndMakesWritesFua() throws IOException {
        Harness h = unitWith(store);
        h.good(A, 0, cdb(SELECT_SAVE), cachingList(false));
        assertEquals(List.of(new SavedModePages(false, false, false)), store.saves);
        assertEquals(
                List.of(0x88, 0),
                List.of(caching(h.good(SENSE_CACHING_SAVED))[0], caching(h.good(SENSE_CACHING_SAVED))[1]),
                "saved: PS set, WCE off");

        Harness restarted = unitWith(store); // a new unit over what the store kept
        assertEquals(0, caching(restarted.good(SENSE_CACHING_CURRENT))[1], "WCE off again after the restart");
        restarted.good(A, 0, cdb("2a 00 00000000 00 0001 00"), new byte[512]); // WRITE(10) without FUA
        assertEquals(List.of(true), device.fua, "WCE=0: the write reached the device as FUA");
    }

    @Test
    void aSelectWithoutSpChangesOnlyTheCurrentValuesAndAResetRestoresTheSavedOnes() throws IOException {
        LogicalUnit unit = new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device);
        unit.modePageStore(store);
        Harness h = new Harness(unit);
        h.good(A, 0, cdb(SELECT_NO_SAVE), cachingList(false));
        assertTrue(store.saves.isEmpty(), "SP=0 saves nothing");
        assertEquals(0, caching(h.good(SENSE_CACHING_CURRENT))[1]);
        assertEquals(0x04, caching(h.good(SENSE_CACHING_SAVED))[1], "saved: still the default");
        unit.reset(Harness.B);
        h.run(A, 0, cdb("00 00 00 00 00 00"), null).recycle(); // the reset's unit attention
        assertEquals(0x04, caching(h.good(SENSE_CACHING_CURRENT))[1], "a LUN reset brings the saved value back");
    }

    @Test
    void aFailedSaveIsAHardwareError() throws IOException {
        store.failing = true;
        Harness h = unitWith(store);
        h.check(A, 0, cdb(SELECT_SAVE), cachingList(false), SenseReason.INTERNAL_TARGET_FAILURE);
    }
}
