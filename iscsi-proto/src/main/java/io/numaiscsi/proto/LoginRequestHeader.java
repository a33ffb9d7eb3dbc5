package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** Login Request BHS, RFC 7143 11.12. Reusable flyweight; the I bit is always 1. */
public final class LoginRequestHeader extends InitiatorBhsFlyweight<LoginRequestHeader> {
    public static final int VERSION_MAX_OFFSET = 2;
    public static final int VERSION_MIN_OFFSET = 3;
    public static final int ISID_OFFSET = 8;
    public static final int TSIH_OFFSET = 14;
    public static final int CID_OFFSET = 20;

    public static final int TRANSIT_BIT = 0x80;
    public static final int CONTINUE_BIT = 0x40;
    public static final int CSG_MASK = 0x0c;
    public static final int CSG_SHIFT = 2;
    public static final int NSG_MASK = 0x03;

    public boolean transit() {
        return flag(TRANSIT_BIT);
    }

    public boolean continueBit() {
        return flag(CONTINUE_BIT);
    }

    /** Current stage: 0 security negotiation, 1 login operational negotiation, 3 full feature phase. */
    public int csg() {
        return csg(buf);
    }

    public int nsg() {
        return nsg(buf);
    }

    public int versionMax() {
        return buf.getUnsignedByte(VERSION_MAX_OFFSET);
    }

    public int versionMin() {
        return buf.getUnsignedByte(VERSION_MIN_OFFSET);
    }

    /** The 6-byte ISID as the low 48 bits. */
    public long isid() {
        return Bhs.getIsid(buf, ISID_OFFSET);
    }

    public int tsih() {
        return buf.getUnsignedShort(TSIH_OFFSET);
    }

    public int cid() {
        return buf.getUnsignedShort(CID_OFFSET);
    }

    static int csg(ByteBuf bhs) {
        return (bhs.getByte(Bhs.FLAGS_OFFSET) & CSG_MASK) >>> CSG_SHIFT;
    }

    static int nsg(ByteBuf bhs) {
        return bhs.getByte(Bhs.FLAGS_OFFSET) & NSG_MASK;
    }
}
