package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** Login Request BHS, RFC 7143 11.12. Reusable flyweight. */
public final class LoginRequestHeader {
    public static final int FLAGS_OFFSET = 1;
    public static final int VERSION_MAX_OFFSET = 2;
    public static final int VERSION_MIN_OFFSET = 3;
    public static final int ISID_OFFSET = 8;
    public static final int TSIH_OFFSET = 14;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int CID_OFFSET = 20;
    public static final int CMD_SN_OFFSET = 24;
    public static final int EXP_STAT_SN_OFFSET = 28;

    public static final int TRANSIT_BIT = 0x80;
    public static final int CONTINUE_BIT = 0x40;
    public static final int CSG_MASK = 0x0c;
    public static final int CSG_SHIFT = 2;
    public static final int NSG_MASK = 0x03;

    private ByteBuf buf;

    public LoginRequestHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    /** Always 1 for a login request. */
    public boolean immediate() {
        return Bhs.immediate(buf);
    }

    public boolean transit() {
        return Bhs.flag(buf, FLAGS_OFFSET, TRANSIT_BIT);
    }

    public boolean continueBit() {
        return Bhs.flag(buf, FLAGS_OFFSET, CONTINUE_BIT);
    }

    /** Current stage: 0 security negotiation, 1 login operational negotiation, 3 full feature phase. */
    public int csg() {
        return (buf.getByte(FLAGS_OFFSET) & CSG_MASK) >>> CSG_SHIFT;
    }

    public int nsg() {
        return buf.getByte(FLAGS_OFFSET) & NSG_MASK;
    }

    public int versionMax() {
        return buf.getUnsignedByte(VERSION_MAX_OFFSET);
    }

    public int versionMin() {
        return buf.getUnsignedByte(VERSION_MIN_OFFSET);
    }

    public int dataSegmentLength() {
        return Bhs.dataSegmentLength(buf);
    }

    /** The 6-byte ISID as the low 48 bits. */
    public long isid() {
        return Bhs.getIsid(buf, ISID_OFFSET);
    }

    public int tsih() {
        return buf.getUnsignedShort(TSIH_OFFSET);
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public int cid() {
        return buf.getUnsignedShort(CID_OFFSET);
    }

    public int cmdSN() {
        return buf.getInt(CMD_SN_OFFSET);
    }

    public int expStatSN() {
        return buf.getInt(EXP_STAT_SN_OFFSET);
    }
}
