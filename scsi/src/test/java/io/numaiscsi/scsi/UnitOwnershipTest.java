package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.cdb;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.scsi.TargetPortGroups.AccessState;
import io.numaiscsi.scsi.TargetPortGroups.Group;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A unit that moves between gateways (explicit ALUA over a {@link UnitOwnership}): its state is the owner's, SET TARGET
 * PORT GROUPS moves it, changes raise ASYMMETRIC ACCESS STATE CHANGED for the others, and a fence waits for the
 * commands admitted before it.
 */
class UnitOwnershipTest {
    /** Gateway B of a pair: port 2 in group 2; gateway A's port 1 in group 1. */
    private static final TargetPortGroups GATEWAY_B = TargetPortGroups.of(
            2,
            new Group(2, AccessState.ACTIVE_OPTIMIZED, List.of(2)),
            List.of(new Group(1, AccessState.ACTIVE_OPTIMIZED, List.of(1))));

    private static final ItNexus ONE = new ItNexus("iqn.1994-05.com.redhat:one", 1, Harness.TARGET, 2);
    private static final ItNexus TWO = new ItNexus("iqn.1994-05.com.redhat:two", 2, Harness.TARGET, 2);

    /** An owner the test moves by hand: requests wait in {@link #requests} until the test answers them. */
    static final class FakeOwnership implements UnitOwnership {
        volatile AccessState state = AccessState.STANDBY;
        volatile int ownerGroup = 1;
        UnitOwnership.Events events;
        final List<Boolean> requested = new ArrayList<>();
        final List<Consumer<SenseReason>> requests = new ArrayList<>();

        @Override
        public AccessState state() {
            return state;
        }

        @Override
        public int ownerGroup() {
            return ownerGroup;
        }

        @Override
        public void request(boolean active, Consumer<SenseReason> done) {
            requested.add(active);
            requests.add(done);
        }

        @Override
        public void events(Events e) {
            events = e;
        }

        void move(AccessState to, int owner) {
            state = to;
            ownerGroup = owner;
            events.changed();
        }
    }

    private final FakeOwnership owner = new FakeOwnership();
    private final TaskSetTest.HeldWrites disk = new TaskSetTest.HeldWrites();
    private final Harness b;

    UnitOwnershipTest() {
        LogicalUnit lu = new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), disk);
        lu.ownership(owner);
        b = new Harness(GATEWAY_B, lu);
    }

    private static byte[] stpg(int state, int group) {
        return new byte[] {0, 0, 0, 0, (byte) state, 0, (byte) (group >> 8), (byte) group};
    }

    private static final byte[] STPG_CDB = cdb("a4 0a 00 00 00 00 00 00 00 08 00 00");

    @Test
    void inquiryReportsImplicitAndExplicitAlua() {
        assertEquals(0x30, b.good(ONE, 0, cdb("12 00 00 00 ff 00"), null)[5] & 0x30, "TPGS 11b");
    }

    @Test
    void reportTargetPortGroupsFollowsTheOwner() {
        byte[] d = b.good(ONE, 0, cdb("a3 2a 00 00 00 00 00 00 01 00 00 00"), null);
        assertEquals(30, d[5], "implicit transition time");
        assertEquals(0x02, d[8], "this gateway: standby");
        assertEquals(0x83, d[9] & 0xFF, "T_SUP S_SUP AO_SUP");
        assertEquals(2, Cdb.u16(d, 10));
        assertEquals(0x00, d[20], "the owner's group: active/optimized");
        assertEquals(1, Cdb.u16(d, 22));
        owner.move(AccessState.ACTIVE_OPTIMIZED, 2);
        b.check(ONE, 0, cdb("a3 2a 00 00 00 00 00 00 01 00 00 00"), null, SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED);
        d = b.good(ONE, 0, cdb("a3 2a 00 00 00 00 00 00 01 00 00 00"), null);
        assertEquals(0x00, d[8], "this gateway owns it now");
        assertEquals(0x02, d[20], "the peer: standby");
        owner.move(AccessState.TRANSITIONING, 0);
        b.check(ONE, 0, cdb("a3 2a 00 00 00 00 00 00 01 00 00 00"), null, SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED);
        d = b.good(ONE, 0, cdb("a3 2a 00 00 00 00 00 00 01 00 00 00"), null);
        assertEquals(0x0F, d[8], "transitioning");
    }

    @Test
    void theStateDecidesWhatRuns() {
        b.check(ONE, 0, Harness.write10(0, 1), new byte[512], SenseReason.TARGET_PORT_IN_STANDBY_STATE);
        b.check(ONE, 0, Harness.read10(0, 1), null, SenseReason.TARGET_PORT_IN_STANDBY_STATE);
        owner.move(AccessState.TRANSITIONING, 0);
        b.check(ONE, 0, Harness.write10(0, 1), new byte[512], SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED);
        b.check(ONE, 0, Harness.write10(0, 1), new byte[512], SenseReason.ASYMMETRIC_ACCESS_STATE_TRANSITION);
        b.check(ONE, 0, STPG_CDB, stpg(0, 2), SenseReason.ASYMMETRIC_ACCESS_STATE_TRANSITION);
        owner.move(AccessState.ACTIVE_OPTIMIZED, 2);
        b.check(ONE, 0, Harness.write10(0, 1), new byte[512], SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED);
        ScsiTask w = b.start(ONE, 0, Harness.write10(0, 1), new byte[512]);
        disk.releaseAll();
        assertEquals(ScsiStatus.GOOD, w.status());
    }

    @Test
    void setTargetPortGroupsMovesTheUnitHereAndTheOthersAreTold() {
        b.good(TWO, 0, cdb("1a 00 3f 00 ff 00"), null); // MODE SENSE: TWO has used the unit, it will be told
        ScsiTask move = b.start(ONE, 0, STPG_CDB, stpg(0, 2));
        assertEquals(List.of(true), owner.requested, "asks for this gateway's group to be active");
        assertTrue(owner.requests.size() == 1 && b.completions == 1, "the status waits for the move");
        owner.move(AccessState.ACTIVE_OPTIMIZED, 2);
        owner.requests.get(0).accept(null);
        assertEquals(ScsiStatus.GOOD, move.status());
        b.good(ONE, 0, cdb("00 00 00 00 00 00"), null); // the requester gets no unit attention for its own move
        b.check(TWO, 0, cdb("00 00 00 00 00 00"), null, SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED);
        byte[] d = b.good(ONE, 0, cdb("a3 0a 00 00 00 00 00 00 01 00 00 00"), null);
        assertEquals(0x01, d[9], "status: altered by SET TARGET PORT GROUPS");

        b.start(ONE, 0, STPG_CDB, stpg(1, 1)); // the other group active: this one gives the unit up
        assertEquals(List.of(true, false), owner.requested);
        owner.requests.get(1).accept(SenseReason.SET_TARGET_PORT_GROUPS_COMMAND_FAILED);
    }

    @Test
    void badParameterListsAreRefused() {
        b.check(ONE, 0, STPG_CDB, stpg(0, 7), SenseReason.INVALID_FIELD_IN_PARAMETER_LIST); // no such group
        b.check(ONE, 0, STPG_CDB, stpg(0x0E, 2), SenseReason.INVALID_FIELD_IN_PARAMETER_LIST); // not a state one sets
        byte[] both = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2};
        b.check(ONE, 0, cdb("a4 0a 00 00 00 00 00 00 00 0c 00 00"), both, SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
        b.check(
                ONE,
                0,
                cdb("a4 0a 00 00 00 00 00 00 00 06 00 00"),
                new byte[6],
                SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        assertTrue(owner.requested.isEmpty());
    }

    @Test
    void aFenceWaitsForTheCommandsAdmittedBefore() {
        owner.move(AccessState.ACTIVE_OPTIMIZED, 2);
        ScsiTask w = b.start(ONE, 0, Harness.write10(0, 1), new byte[512]);
        boolean[] drained = {false};
        owner.state = AccessState.TRANSITIONING;
        owner.events.lost(() -> drained[0] = true);
        assertTrue(!drained[0], "the WRITE admitted before the fence still executes");
        disk.releaseAll();
        assertTrue(drained[0], "drained once it left");
        assertEquals(ScsiStatus.GOOD, w.status());
    }

    @Test
    void aFenceDoesNotWaitForCommandsThatDoNotWrite() {
        ScsiTask move = b.start(ONE, 0, STPG_CDB, stpg(0, 2)); // executing: its move waits behind the fence's recovery
        boolean[] drained = {false};
        owner.events.lost(() -> drained[0] = true);
        assertTrue(drained[0], "a SET TARGET PORT GROUPS in progress does not hold the recovery it waits for");
        owner.requests.get(0).accept(SenseReason.ASYMMETRIC_ACCESS_STATE_TRANSITION);
        Harness.assertSense(move, SenseReason.ASYMMETRIC_ACCESS_STATE_TRANSITION);
    }

    @Test
    void withoutAMovingUnitSetTargetPortGroupsIsUnknown() {
        assertNull(new Harness(
                        GATEWAY_B,
                        new LogicalUnit(
                                0, LunIdentity.derive(Harness.TARGET, 0, null), new RamBlockDevice(1 << 20, 512)))
                .target
                .unit(0)
                .ownership());
        new Harness(
                        GATEWAY_B,
                        new LogicalUnit(
                                0, LunIdentity.derive(Harness.TARGET, 0, null), new RamBlockDevice(1 << 20, 512)))
                .check(ONE, 0, STPG_CDB, stpg(0, 2), SenseReason.INVALID_COMMAND_OPERATION_CODE);
    }
}
