package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.cdb;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * LUN masking: each initiator sees the units of its view at the numbers it gives; REPORT LUNS and every command
 * follow; a change raises REPORTED LUNS DATA HAS CHANGED for the initiators whose view changed, and only for them.
 */
class LunMaskingTest {
    private static final ItNexus DB = new ItNexus("iqn.1994-05.com.redhat:db", 1, Harness.TARGET, 1);
    private static final ItNexus BACKUP = new ItNexus("iqn.1994-05.com.redhat:Backup", 2, Harness.TARGET, 1);
    private static final ItNexus OTHER = new ItNexus("iqn.1994-05.com.redhat:other", 3, Harness.TARGET, 1);

    /** LUNs 0, 1, 2 of 8 MiB each; DB sees 0 and 1, BACKUP sees 2 as 0, everyone else sees 1. */
    private final Harness h = new Harness(512, 8L << 20, 0, 1, 2);

    LunMaskingTest() {
        h.target.masking(LunMasking.of(List.of(
                new LunMasking.View(List.of("iqn.1994-05.com.redhat:db"), Map.of(0, 0, 1, 1)),
                new LunMasking.View(List.of("iqn.1994-05.com.redhat:backup"), Map.of(0, 2)),
                new LunMasking.View(List.of(LunMasking.OTHERS), Map.of(1, 1)))));
    }

    private List<Integer> reportLuns(ItNexus n) {
        byte[] d = h.good(n, 0, cdb("a0 00 00 00 00 00 00 00 01 00 00 00"), null);
        List<Integer> luns = new ArrayList<>();
        for (int at = 8; at < 8 + Cdb.u32(d, 0); at += 8) {
            luns.add(Cdb.u16(d, at) & 0x3FFF);
        }
        return luns;
    }

    @Test
    void eachInitiatorSeesItsView() {
        assertEquals(List.of(0, 1), reportLuns(DB));
        assertEquals(List.of(0), reportLuns(BACKUP), "names are case-insensitive");
        assertEquals(List.of(1), reportLuns(OTHER), "the view for everyone else");
    }

    @Test
    void commandsReachTheUnitTheirNumberNames() {
        byte[] data = Harness.pattern(512, 7);
        h.good(BACKUP, 0, Harness.write10(5, 1), data); // BACKUP's LUN 0 is the target's LUN 2
        assertArrayEquals(new byte[512], h.good(DB, 0, Harness.read10(5, 1), null), "DB's LUN 0 is the target's 0");
        h.target.masking(
                LunMasking.of(List.of(new LunMasking.View(List.of("iqn.1994-05.com.redhat:db"), Map.of(0, 2)))));
        h.check(DB, 0, Harness.read10(0, 1), null, SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED);
        assertArrayEquals(data, h.good(DB, 0, Harness.read10(5, 1), null), "DB now sees LUN 2 as 0");
    }

    @Test
    void aLunOutsideTheViewDoesNotExistForThatInitiator() {
        h.check(OTHER, 0, Harness.read10(0, 1), null, SenseReason.LOGICAL_UNIT_NOT_SUPPORTED);
        h.check(BACKUP, 2, Harness.read10(0, 1), null, SenseReason.LOGICAL_UNIT_NOT_SUPPORTED);
        byte[] inquiry = h.good(OTHER, 0, cdb("12 00 00 00 24 00"), null);
        assertEquals(0x7F, inquiry[0] & 0xFF, "INQUIRY of a LUN it does not see: no unit there");
        h.good(OTHER, 1, cdb("00 00 00 00 00 00"), null);
    }

    @Test
    void aChangeIsAnnouncedOnlyToTheInitiatorsWhoseViewChanged() {
        h.good(DB, 0, cdb("00 00 00 00 00 00"), null);
        h.good(BACKUP, 0, cdb("00 00 00 00 00 00"), null);
        h.good(OTHER, 1, cdb("00 00 00 00 00 00"), null);
        h.target.masking(LunMasking.of(List.of(
                new LunMasking.View(List.of("iqn.1994-05.com.redhat:db"), Map.of(0, 0, 1, 1)),
                new LunMasking.View(List.of("iqn.1994-05.com.redhat:backup"), Map.of(0, 2, 1, 1)),
                new LunMasking.View(List.of(LunMasking.OTHERS), Map.of(1, 1)))));
        h.check(BACKUP, 0, cdb("00 00 00 00 00 00"), null, SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED);
        h.good(DB, 0, cdb("00 00 00 00 00 00"), null);
        h.good(OTHER, 1, cdb("00 00 00 00 00 00"), null);
        assertEquals(List.of(0, 1), reportLuns(BACKUP));
    }

    @Test
    void anInitiatorWhoseUnitLeftItsViewIsToldOnTheUnitsItNowSees() {
        h.good(DB, 0, cdb("00 00 00 00 00 00"), null); // DB has used unit 0 only
        h.target.masking(
                LunMasking.of(List.of(new LunMasking.View(List.of("iqn.1994-05.com.redhat:db"), Map.of(2, 2)))));
        h.check(DB, 0, cdb("00 00 00 00 00 00"), null, SenseReason.LOGICAL_UNIT_NOT_SUPPORTED);
        h.check(DB, 2, cdb("00 00 00 00 00 00"), null, SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED);
        h.good(DB, 2, cdb("00 00 00 00 00 00"), null);
    }

    @Test
    void withoutMaskingEveryoneSeesEverything() {
        h.target.masking(LunMasking.NONE);
        assertEquals(List.of(0, 1, 2), reportLuns(OTHER));
        assertEquals(List.of(0, 1, 2), reportLuns(DB));
    }

    @Test
    void anInitiatorInTwoViewsIsRefused() {
        assertThrows(
                IllegalArgumentException.class,
                () -> LunMasking.of(List.of(
                        new LunMasking.View(List.of("iqn.x:a"), Map.of(0, 0)),
                        new LunMasking.View(List.of("IQN.X:A"), Map.of(0, 1)))));
    }
}
