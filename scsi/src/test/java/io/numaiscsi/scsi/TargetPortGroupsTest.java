package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.cdb;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.scsi.TargetPortGroups.AccessState;
import io.numaiscsi.scsi.TargetPortGroups.Group;
import java.util.List;
import org.junit.jupiter.api.Test;

class TargetPortGroupsTest {
    /** Gateway B of a pair: port 2 in group 2 (active/non-optimized); gateway A's port 1 in group 1 (optimized). */
    private static final TargetPortGroups GATEWAY_B = TargetPortGroups.of(
            2,
            new Group(2, AccessState.ACTIVE_NON_OPTIMIZED, List.of(2)),
            List.of(new Group(1, AccessState.ACTIVE_OPTIMIZED, List.of(1))));

    private static final ItNexus VIA_B =
            new ItNexus("iqn.1994-05.com.redhat:alpha", 0x23D000000001L, Harness.TARGET, 2);

    private static Harness gateway(TargetPortGroups groups) {
        LogicalUnit lu =
                new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), new RamBlockDevice(8 << 20, 512));
        return new Harness(groups, lu);
    }

    @Test
    void inquiryReportsImplicitAluaOnlyWhenConfigured() {
        assertEquals(0x10, gateway(GATEWAY_B).good(VIA_B, 0, cdb("12 00 00 00 ff 00"), null)[5] & 0x30, "TPGS 01b");
        assertEquals(0x00, new Harness().good("12 00 00 00 ff 00")[5] & 0x30, "TPGS 00b without ALUA");
    }

    @Test
    void reportTargetPortGroupsLengthOnlyFormat() {
        byte[] d = gateway(GATEWAY_B).good(VIA_B, 0, cdb("a3 0a 00 00 00 00 00 00 01 00 00 00"), null);
        assertEquals(4 + 2 * 12, d.length);
        assertEquals(d.length - 4, Cdb.u32(d, 0), "RETURN DATA LENGTH");
        // this gateway's group first
        assertEquals(0x01, d[4], "PREF 0, active/non-optimized");
        assertEquals(0x0F, d[5], "U_SUP S_SUP AN_SUP AO_SUP");
        assertEquals(2, Cdb.u16(d, 6), "group 2");
        assertEquals(0x02, d[9], "status: implicit transition");
        assertEquals(1, d[11], "one port");
        assertEquals(2, Cdb.u16(d, 14), "relative target port 2");
        assertEquals(0x00, d[16], "the peer: active/optimized");
        assertEquals(1, Cdb.u16(d, 18), "group 1");
        assertEquals(1, d[23]);
        assertEquals(1, Cdb.u16(d, 26), "relative target port 1");
    }

    @Test
    void reportTargetPortGroupsExtendedHeader() {
        byte[] d = gateway(GATEWAY_B).good(VIA_B, 0, cdb("a3 2a 00 00 00 00 00 00 01 00 00 00"), null);
        assertEquals(8 + 2 * 12, d.length);
        assertEquals(d.length - 4, Cdb.u32(d, 0), "RETURN DATA LENGTH");
        assertEquals(0x10, d[4], "FORMAT TYPE 001b");
        assertEquals(0, d[5], "implicit transition time");
        assertEquals(2, Cdb.u16(d, 10), "group 2 follows the header");
    }

    @Test
    void allocationLengthClipsTheReport() {
        assertEquals(6, gateway(GATEWAY_B).good(VIA_B, 0, cdb("a3 0a 00 00 00 00 00 00 00 06 00 00"), null).length);
    }

    @Test
    void badFormatAndNoAluaAreRefused() {
        gateway(GATEWAY_B)
                .check(VIA_B, 0, cdb("a3 4a 00 00 00 00 00 00 01 00 00 00"), null, SenseReason.INVALID_FIELD_IN_CDB);
        new Harness().check("a3 0a 00 00 00 00 00 00 01 00 00 00", SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void setTargetPortGroupsIsRefused() {
        gateway(GATEWAY_B)
                .check(
                        VIA_B,
                        0,
                        cdb("a4 0a 00 00 00 00 00 00 00 08 00 00"),
                        null,
                        SenseReason.INVALID_COMMAND_OPERATION_CODE);
    }

    @Test
    void supportedOperationCodesListRtpgOnlyWithAlua() {
        byte[] one = gateway(GATEWAY_B).good(VIA_B, 0, cdb("a3 0c 02 a3 00 0a 00 00 01 00 00 00"), null);
        assertEquals(0x03, one[1] & 0x07, "supported");
        assertEquals(12, Cdb.u16(one, 2), "CDB length");
        assertEquals((byte) 0xEA, one[5], "service action and PARAMETER DATA FORMAT in the usage map");
        byte[] none = new Harness().good("a3 0c 02 a3 00 0a 00 00 01 00 00 00");
        assertEquals(0x01, none[1] & 0x07, "not supported without ALUA");
    }

    @Test
    void deviceIdentificationCarriesRelativePortAndGroup() {
        byte[] d = gateway(GATEWAY_B).good(VIA_B, 0, cdb("12 01 83 00 ff 00"), null);
        int relativePort = -1;
        int group = -1;
        for (int at = 4; at < d.length; at += 4 + (d[at + 3] & 0xFF)) {
            if ((d[at + 1] & 0x3F) == 0x14) {
                relativePort = Cdb.u16(d, at + 6);
            } else if ((d[at + 1] & 0x3F) == 0x15) {
                assertEquals(0x51, d[at], "iSCSI, binary");
                assertEquals((byte) 0x95, d[at + 1], "PIV, target port, target port group");
                group = Cdb.u16(d, at + 6);
            }
        }
        assertEquals(2, relativePort);
        assertEquals(2, group);
    }

    @Test
    void activeStatesAllowEverything() {
        Harness h = gateway(GATEWAY_B);
        h.good(VIA_B, 0, cdb("00 00 00 00 00 00"), null); // a unit attention would fail this; none is pending
        h.good(VIA_B, 0, Harness.write10(0, 1), new byte[512]);
        h.good(VIA_B, 0, Harness.read10(0, 1), null);
    }

    @Test
    void standbyAndUnavailableRefuseMediumAccess() {
        Harness standby = gateway(TargetPortGroups.of(2, new Group(2, AccessState.STANDBY, List.of(2)), List.of()));
        standby.check(VIA_B, 0, Harness.read10(0, 1), null, SenseReason.TARGET_PORT_IN_STANDBY_STATE);
        standby.check(VIA_B, 0, cdb("00 00 00 00 00 00"), null, SenseReason.TARGET_PORT_IN_STANDBY_STATE);
        standby.good(VIA_B, 0, cdb("1a 00 3f 00 ff 00"), null);
        standby.good(VIA_B, 0, cdb("5e 00 00 00 00 00 00 01 00 00"), null);
        Harness unavailable =
                gateway(TargetPortGroups.of(2, new Group(2, AccessState.UNAVAILABLE, List.of(2)), List.of()));
        unavailable.check(VIA_B, 0, cdb("1a 00 3f 00 ff 00"), null, SenseReason.TARGET_PORT_IN_UNAVAILABLE_STATE);
        unavailable.good(VIA_B, 0, cdb("12 00 00 00 ff 00"), null);
        unavailable.good(VIA_B, 0, cdb("a3 0a 00 00 00 00 00 00 01 00 00 00"), null);
    }

    @Test
    void inconsistentGroupsAreRejected() {
        Group one = new Group(1, AccessState.ACTIVE_OPTIMIZED, List.of(1));
        assertThrows(IllegalArgumentException.class, () -> TargetPortGroups.of(2, one, List.of()));
        assertThrows(
                IllegalArgumentException.class,
                () -> TargetPortGroups.of(1, one, List.of(new Group(1, AccessState.STANDBY, List.of(2)))));
        assertThrows(
                IllegalArgumentException.class,
                () -> TargetPortGroups.of(1, one, List.of(new Group(2, AccessState.STANDBY, List.of(1)))));
        assertThrows(IllegalArgumentException.class, () -> new Group(0, AccessState.STANDBY, List.of(1)));
        assertThrows(IllegalArgumentException.class, () -> new Group(1, AccessState.STANDBY, List.of(70000)));
    }

    @Test
    void theTargetPortalGroupTagFollowsThePort() {
        assertEquals(2, gateway(GATEWAY_B).target.targetPortalGroupTag(1));
        assertEquals(7, new Harness().target.targetPortalGroupTag(7));
    }
}
