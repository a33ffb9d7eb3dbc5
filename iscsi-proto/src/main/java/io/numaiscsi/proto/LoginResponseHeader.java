package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** Login Response BHS, RFC 7143 11.13. Reusable flyweight. */
public final class LoginResponseHeader {
    public static final int FLAGS_OFFSET = 1;
    public static final int VERSION_MAX_OFFSET = 2;
    public static final int VERSION_ACTIVE_OFFSET = 3;
    public static final int ISID_OFFSET = 8;
    public static final int TSIH_OFFSET = 14;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int STAT_SN_OFFSET = 24;
    public static final int EXP_CMD_SN_OFFSET = 28;
    public static final int MAX_CMD_SN_OFFSET = 32;
    public static final int STATUS_CLASS_OFFSET = 36;
    public static final int STATUS_DETAIL_OFFSET = 37;

    public static final int TRANSIT_BIT = LoginRequestHeader.TRANSIT_BIT;
    public static final int CONTINUE_BIT = LoginRequestHeader.CONTINUE_BIT;
    public static final int CSG_MASK = LoginRequestHeader.CSG_MASK;
    public static final int CSG_SHIFT = LoginRequestHeader.CSG_SHIFT;
    public static final int NSG_MASK = LoginRequestHeader.NSG_MASK;

    private ByteBuf buf;

    public LoginResponseHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    /** Zeroes the BHS and sets the opcode. */
    public LoginResponseHeader init() {
        Bhs.init(buf, Opcode.LOGIN_RESPONSE.code(), 0);
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public int dataSegmentLength() {
        return Bhs.dataSegmentLength(buf);
    }

    public boolean transit() {
        return Bhs.flag(buf, FLAGS_OFFSET, TRANSIT_BIT);
    }

    public LoginResponseHeader transit(boolean on) {
        Bhs.flag(buf, FLAGS_OFFSET, TRANSIT_BIT, on);
        return this;
    }

    public boolean continueBit() {
        return Bhs.flag(buf, FLAGS_OFFSET, CONTINUE_BIT);
    }

    public LoginResponseHeader continueBit(boolean on) {
        Bhs.flag(buf, FLAGS_OFFSET, CONTINUE_BIT, on);
        return this;
    }

    public int csg() {
        return (buf.getByte(FLAGS_OFFSET) & CSG_MASK) >>> CSG_SHIFT;
    }

    public LoginResponseHeader csg(int stage) {
        Bhs.bits(buf, FLAGS_OFFSET, CSG_MASK, CSG_SHIFT, stage);
        return this;
    }

    public int nsg() {
        return buf.getByte(FLAGS_OFFSET) & NSG_MASK;
    }

    public LoginResponseHeader nsg(int stage) {
        Bhs.bits(buf, FLAGS_OFFSET, NSG_MASK, 0, stage);
        return this;
    }

    public int versionMax() {
        return buf.getUnsignedByte(VERSION_MAX_OFFSET);
    }

    public LoginResponseHeader versionMax(int version) {
        buf.setByte(VERSION_MAX_OFFSET, version);
        return this;
    }

    public int versionActive() {
        return buf.getUnsignedByte(VERSION_ACTIVE_OFFSET);
    }

    public LoginResponseHeader versionActive(int version) {
        buf.setByte(VERSION_ACTIVE_OFFSET, version);
        return this;
    }

    public long isid() {
        return Bhs.getIsid(buf, ISID_OFFSET);
    }

    /** @param isid the 6-byte ISID in the low 48 bits */
    public LoginResponseHeader isid(long isid) {
        Bhs.setIsid(buf, ISID_OFFSET, isid);
        return this;
    }

    public int tsih() {
        return buf.getUnsignedShort(TSIH_OFFSET);
    }

    public LoginResponseHeader tsih(int tsih) {
        buf.setShort(TSIH_OFFSET, tsih);
        return this;
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public LoginResponseHeader initiatorTaskTag(int itt) {
        buf.setInt(INITIATOR_TASK_TAG_OFFSET, itt);
        return this;
    }

    public int statSN() {
        return buf.getInt(STAT_SN_OFFSET);
    }

    public LoginResponseHeader statSN(int statSN) {
        buf.setInt(STAT_SN_OFFSET, statSN);
        return this;
    }

    public int expCmdSN() {
        return buf.getInt(EXP_CMD_SN_OFFSET);
    }

    public LoginResponseHeader expCmdSN(int expCmdSN) {
        buf.setInt(EXP_CMD_SN_OFFSET, expCmdSN);
        return this;
    }

    public int maxCmdSN() {
        return buf.getInt(MAX_CMD_SN_OFFSET);
    }

    public LoginResponseHeader maxCmdSN(int maxCmdSN) {
        buf.setInt(MAX_CMD_SN_OFFSET, maxCmdSN);
        return this;
    }

    public int statusClass() {
        return buf.getUnsignedByte(STATUS_CLASS_OFFSET);
    }

    public LoginResponseHeader statusClass(int statusClass) {
        buf.setByte(STATUS_CLASS_OFFSET, statusClass);
        return this;
    }

    public int statusDetail() {
        return buf.getUnsignedByte(STATUS_DETAIL_OFFSET);
    }

    public LoginResponseHeader statusDetail(int statusDetail) {
        buf.setByte(STATUS_DETAIL_OFFSET, statusDetail);
        return this;
    }

    /** Sets Status-Class and Status-Detail together. */
    public LoginResponseHeader status(LoginStatus status) {
        return statusClass(status.statusClass()).statusDetail(status.statusDetail());
    }
}
