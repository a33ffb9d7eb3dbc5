package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;

/**
 * The Logical Block Provisioning mode page (1Ch/02h, SBC-4 6.5.6) of a unit that reports LBA mapping resources: two
 * soft threshold descriptors for the one configured threshold (used resources armed increasing, available resources
 * armed decreasing; see {@link ProvisioningThreshold}), ENABLED only when a threshold is set. SITUA 0: the unit
 * attention goes to every I_T nexus. Set by configuration, not by MODE SELECT: nothing is changeable.
 */
final class ProvisioningModePage {
    static final int PAGE = 0x1C;
    static final int SUBPAGE = 0x02;
    static final int LENGTH = 16 + 2 * 8;
    private static final int ENABLED = 0x80;
    private static final int SOFT = 0x00 << 3;
    private static final int ARMED_INCREASING = 0x01;
    private static final int ARMED_DECREASING = 0x00;

    private ProvisioningModePage() {}

    static void write(LogicalUnit lu, int pc, ByteBuf out) {
        out.writeByte(0x40 | PAGE); // PS 0, SPF 1
        out.writeByte(SUBPAGE);
        out.writeShort(LENGTH - 4);
        out.writeZero(12); // SITUA 0, reserved
        if (pc == ModePages.PC_CHANGEABLE) {
            out.writeZero(LENGTH - 16); // no field is changeable
            return;
        }
        ProvisioningThreshold p = lu.provisioning;
        boolean on = p.softPercent() != 0;
        int e = p.exponent(lu.blockCount, lu.blockSize);
        descriptor(
                out,
                on,
                ARMED_INCREASING,
                ProvisioningThreshold.RESOURCE_USED,
                on ? p.usedThresholdSets(lu.blockCount, e) : 0);
        descriptor(
                out,
                on,
                ARMED_DECREASING,
                ProvisioningThreshold.RESOURCE_AVAILABLE,
                on ? p.availableThresholdSets(lu.blockCount, e) : 0);
    }

    private static void descriptor(ByteBuf out, boolean enabled, int arming, int resource, long sets) {
        out.writeByte((enabled ? ENABLED : 0) | SOFT | arming);
        out.writeByte(resource);
        out.writeShort(0);
        out.writeInt((int) Math.min(sets, 0xFFFF_FFFFL));
    }
}
