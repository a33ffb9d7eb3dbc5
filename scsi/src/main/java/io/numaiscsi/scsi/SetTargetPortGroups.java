package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;

/**
 * SET TARGET PORT GROUPS (SPC-4 6.37) for a unit that moves between gateways ({@link UnitOwnership}): a descriptor
 * asking for this gateway's group to be active (optimized or not) moves the unit here; one asking for standby or
 * unavailable gives it up; asking for another group to be active while this one has the unit gives it up too, so
 * that group's gateway takes it without fencing this one. One group at most may be asked to be active. The status
 * waits until the move is done (or failed: NOT READY, ASYMMETRIC ACCESS STATE TRANSITION while this gateway recovers;
 * HARDWARE ERROR, SET TARGET PORT GROUPS COMMAND FAILED when the store refused).
 */
final class SetTargetPortGroups {
    /** 4-byte header and 4-byte descriptors: room for far more groups than a target has. */
    static final int MAX_PARAMETER_LIST_LENGTH = 4 + 4 * 1024;

    private static final int HEADER = 4;
    private static final int DESCRIPTOR = 4;

    private SetTargetPortGroups() {}

    static void execute(ScsiTask t, LogicalUnit lu) {
        int length = t.dataOutLength;
        if (length == 0) {
            t.completeGood(); // no descriptor, nothing to change
            return;
        }
        ByteBuf p = t.dataOut;
        if (length < HEADER || (length - HEADER) % DESCRIPTOR != 0 || p == null || p.readableBytes() < length) {
            t.completeFailed(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            return;
        }
        TargetPortGroups groups = lu.portGroups();
        int local = groups.local().id();
        Boolean activeHere = null;
        boolean activeElsewhere = false;
        int activeCount = 0;
        int base = p.readerIndex();
        for (int at = HEADER; at < length; at += DESCRIPTOR) {
            int state = p.getByte(base + at) & 0x0F;
            int group = p.getUnsignedShort(base + at + 2);
            if (!groups.hasGroup(group)) {
                t.completeFailedWithKeySpecific(
                        SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, SenseData.parameterFieldPointer(at + 2, -1));
                return;
            }
            if (state > TargetPortGroups.AccessState.UNAVAILABLE.code) {
                t.completeFailedWithKeySpecific(
                        SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, SenseData.parameterFieldPointer(at, 3));
                return;
            }
            boolean active = state == TargetPortGroups.AccessState.ACTIVE_OPTIMIZED.code
                    || state == TargetPortGroups.AccessState.ACTIVE_NON_OPTIMIZED.code;
            if (active && ++activeCount > 1) {
                // one gateway writes the unit at a time
                t.completeFailedWithKeySpecific(
                        SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, SenseData.parameterFieldPointer(at, 3));
                return;
            }
            if (group == local) {
                activeHere = active;
            } else if (active) {
                activeElsewhere = true;
            }
        }
        UnitOwnership owner = lu.ownership();
        if (activeHere == null) {
            if (!activeElsewhere || owner.state() != TargetPortGroups.AccessState.ACTIVE_OPTIMIZED) {
                t.completeGood();
                return;
            }
            activeHere = false;
        }
        lu.movedBy(t.nexus);
        owner.request(
                activeHere,
                failure -> lu.thread().runHereOrQueue(() -> {
                    lu.movedBy(null);
                    if (failure == null) {
                        t.completeGood();
                    } else {
                        t.completeFailed(failure);
                    }
                }));
    }
}
