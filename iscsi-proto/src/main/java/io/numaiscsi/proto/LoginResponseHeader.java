package io.numaiscsi.proto;

/** Login Response BHS, RFC 7143 11.13. Reusable flyweight. */
public final class LoginResponseHeader extends TargetBhsFlyweight<LoginResponseHeader> {
    public static final int VERSION_MAX_OFFSET = LoginRequestHeader.VERSION_MAX_OFFSET;
    public static final int VERSION_ACTIVE_OFFSET = 3;
    public static final int ISID_OFFSET = LoginRequestHeader.ISID_OFFSET;
    public static final int TSIH_OFFSET = LoginRequestHeader.TSIH_OFFSET;
    public static final int STATUS_CLASS_OFFSET = 36;
    public static final int STATUS_DETAIL_OFFSET = 37;

    public static final int TRANSIT_BIT = LoginRequestHeader.TRANSIT_BIT;
    public static final int CONTINUE_BIT = LoginRequestHeader.CONTINUE_BIT;
    public static final int CSG_MASK = LoginRequestHeader.CSG_MASK;
    public static final int CSG_SHIFT = LoginRequestHeader.CSG_SHIFT;
    public static final int NSG_MASK = LoginRequestHeader.NSG_MASK;

    /** Zeroes the BHS and sets the opcode. */
    public LoginResponseHeader init() {
        return init(Opcode.LOGIN_RESPONSE, 0);
    }

    public boolean transit() {
        return flag(TRANSIT_BIT);
    }

    public LoginResponseHeader transit(boolean on) {
        return flag(TRANSIT_BIT, on);
    }

    public boolean continueBit() {
        return flag(CONTINUE_BIT);
    }

    public LoginResponseHeader continueBit(boolean on) {
        return flag(CONTINUE_BIT, on);
    }

    public int csg() {
        return LoginRequestHeader.csg(buf);
    }

    public LoginResponseHeader csg(int stage) {
        Bhs.bits(buf, Bhs.FLAGS_OFFSET, CSG_MASK, CSG_SHIFT, stage);
        return this;
    }

    public int nsg() {
        return LoginRequestHeader.nsg(buf);
    }

    public LoginResponseHeader nsg(int stage) {
        Bhs.bits(buf, Bhs.FLAGS_OFFSET, NSG_MASK, 0, stage);
        return this;
    }

    public int versionMax() {
        return buf.getUnsignedByte(VERSION_MAX_OFFSET);
    }

    public LoginResponseHeader versionMax(int version) {
        return setByte(VERSION_MAX_OFFSET, version);
    }

    public int versionActive() {
        return buf.getUnsignedByte(VERSION_ACTIVE_OFFSET);
    }

    public LoginResponseHeader versionActive(int version) {
        return setByte(VERSION_ACTIVE_OFFSET, version);
    }

    public long isid() {
        return Bhs.getIsid(buf, ISID_OFFSET);
    }

    /** Sets the ISID, the 6-byte value in the low 48 bits of {@code isid}. */
    public LoginResponseHeader isid(long isid) {
        Bhs.setIsid(buf, ISID_OFFSET, isid);
        return this;
    }

    public int tsih() {
        return buf.getUnsignedShort(TSIH_OFFSET);
    }

    public LoginResponseHeader tsih(int tsih) {
        return setShort(TSIH_OFFSET, tsih);
    }

    public int statusClass() {
        return buf.getUnsignedByte(STATUS_CLASS_OFFSET);
    }

    public LoginResponseHeader statusClass(int statusClass) {
        return setByte(STATUS_CLASS_OFFSET, statusClass);
    }

    public int statusDetail() {
        return buf.getUnsignedByte(STATUS_DETAIL_OFFSET);
    }

    public LoginResponseHeader statusDetail(int statusDetail) {
        return setByte(STATUS_DETAIL_OFFSET, statusDetail);
    }

    /** Sets Status-Class and Status-Detail together. */
    public LoginResponseHeader status(LoginStatus status) {
        return statusClass(status.statusClass()).statusDetail(status.statusDetail());
    }
}
