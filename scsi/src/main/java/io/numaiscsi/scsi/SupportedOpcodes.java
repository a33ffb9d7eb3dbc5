package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;

/**
 * REPORT SUPPORTED OPERATION CODES (SPC-4 6.35): the command table with each CDB usage map (bits
 * the device server looks at) and the command timeouts descriptor.
 */
final class SupportedOpcodes {
    private static final int NO_SERVICE_ACTION = -1;
    /** CDB byte of REPORTING OPTIONS, named by the field pointer when they do not fit the requested opcode. */
    static final int REPORTING_OPTIONS_BYTE = 2;

    private static final int FF = 0xFF;
    private static final int CTRL = 0x04; // NACA is examined (and rejected)
    private static final int NOMINAL_TIMEOUT_SECONDS = 30;
    private static final int RECOMMENDED_TIMEOUT_SECONDS = 60;

    /** One supported command: opcode, service action (or -1), usage map (whose length is the CDB length). */
    record Entry(int opcode, int serviceAction, int[] usage) {}

    static final Entry[] COMMANDS = {
        e(0x00, 0x00, 0, 0, 0, 0, CTRL), // TEST UNIT READY
        e(0x03, 0x03, 0x01, 0, 0, FF, CTRL), // REQUEST SENSE
        e(0x08, 0x08, 0x1F, FF, FF, FF, CTRL), // READ(6)
        e(0x0A, 0x0A, 0x1F, FF, FF, FF, CTRL), // WRITE(6)
        e(0x12, 0x12, 0x01, FF, FF, FF, CTRL), // INQUIRY
        e(0x15, 0x15, 0x11, 0, 0, FF, CTRL), // MODE SELECT(6)
        e(0x16, 0x16, 0, 0, 0, 0, CTRL), // RESERVE(6)
        e(0x17, 0x17, 0, 0, 0, 0, CTRL), // RELEASE(6)
        e(0x1A, 0x1A, 0x08, FF, FF, FF, CTRL), // MODE SENSE(6)
        e(0x1B, 0x1B, 0x01, 0, 0x0F, 0xF7, CTRL), // START STOP UNIT
        e(0x1E, 0x1E, 0, 0, 0, 0x03, CTRL), // PREVENT ALLOW MEDIUM REMOVAL
        e(0x25, 0x25, 0, FF, FF, FF, FF, 0, 0, 0x01, CTRL), // READ CAPACITY(10)
        e(0x28, 0x28, 0xFC, FF, FF, FF, FF, 0x1F, FF, FF, CTRL), // READ(10)
        e(0x2A, 0x2A, 0xFC, FF, FF, FF, FF, 0x1F, FF, FF, CTRL), // WRITE(10)
        e(0x2E, 0x2E, 0xF6, FF, FF, FF, FF, 0x1F, FF, FF, CTRL), // WRITE AND VERIFY(10)
        e(0x2F, 0x2F, 0xF6, FF, FF, FF, FF, 0x1F, FF, FF, CTRL), // VERIFY(10)
        e(0x34, 0x34, 0x02, FF, FF, FF, FF, 0x1F, FF, FF, CTRL), // PRE-FETCH(10)
        e(0x35, 0x35, 0x02, FF, FF, FF, FF, 0x1F, FF, FF, CTRL), // SYNCHRONIZE CACHE(10)
        e(0x37, 0x37, 0, 0x1F, 0, 0, 0, 0, FF, FF, CTRL), // READ DEFECT DATA(10)
        e(0x41, 0x41, 0xF8, FF, FF, FF, FF, 0x1F, FF, FF, CTRL), // WRITE SAME(10)
        e(0x42, 0x42, 0x01, 0, 0, 0, 0, 0x1F, FF, FF, CTRL), // UNMAP
        s(0x48, Sanitize.OVERWRITE, 0x48, 0xBF, 0, 0, 0, 0, 0, FF, FF, CTRL), // SANITIZE (no CRYPTOGRAPHIC ERASE)
        s(0x48, Sanitize.BLOCK_ERASE, 0x48, 0xBF, 0, 0, 0, 0, 0, FF, FF, CTRL),
        s(0x48, Sanitize.EXIT_FAILURE_MODE, 0x48, 0xBF, 0, 0, 0, 0, 0, FF, FF, CTRL),
        e(0x4D, 0x4D, 0x03, FF, FF, 0, FF, FF, FF, FF, CTRL), // LOG SENSE
        e(0x55, 0x55, 0x11, 0, 0, 0, 0, 0, FF, FF, CTRL), // MODE SELECT(10)
        e(0x56, 0x56, 0, 0, 0, 0, 0, 0, 0, 0, CTRL), // RESERVE(10)
        e(0x57, 0x57, 0, 0, 0, 0, 0, 0, 0, 0, CTRL), // RELEASE(10)
        e(0x5A, 0x5A, 0x18, FF, FF, 0, 0, 0, FF, FF, CTRL), // MODE SENSE(10)
        s(0x5E, 0x00, 0x5E, 0x1F, 0, 0, 0, 0, 0, FF, FF, CTRL), // PERSISTENT RESERVE IN
        s(0x5E, 0x01, 0x5E, 0x1F, 0, 0, 0, 0, 0, FF, FF, CTRL),
        s(0x5E, 0x02, 0x5E, 0x1F, 0, 0, 0, 0, 0, FF, FF, CTRL),
        s(0x5E, 0x03, 0x5E, 0x1F, 0, 0, 0, 0, 0, FF, FF, CTRL),
        s(0x5F, 0x00, 0x5F, 0x1F, FF, 0, 0, FF, FF, FF, FF, CTRL), // PERSISTENT RESERVE OUT
        s(0x5F, 0x01, 0x5F, 0x1F, FF, 0, 0, FF, FF, FF, FF, CTRL),
        s(0x5F, 0x02, 0x5F, 0x1F, FF, 0, 0, FF, FF, FF, FF, CTRL),
        s(0x5F, 0x03, 0x5F, 0x1F, FF, 0, 0, FF, FF, FF, FF, CTRL),
        s(0x5F, 0x04, 0x5F, 0x1F, FF, 0, 0, FF, FF, FF, FF, CTRL),
        s(0x5F, 0x05, 0x5F, 0x1F, FF, 0, 0, FF, FF, FF, FF, CTRL),
        s(0x5F, 0x06, 0x5F, 0x1F, FF, 0, 0, FF, FF, FF, FF, CTRL),
        s(0x5F, 0x07, 0x5F, 0x1F, 0, 0, 0, FF, FF, FF, FF, CTRL), // REGISTER AND MOVE ignores SCOPE, TYPE
        s(0x83, 0x00, 0x83, 0x1F, 0, 0, 0, 0, 0, 0, 0, 0, FF, FF, FF, FF, 0, CTRL), // EXTENDED COPY (LID1)
        s(0x84, 0x00, 0x84, 0x1F, FF, 0, 0, 0, 0, 0, 0, 0, FF, FF, FF, FF, 0, CTRL), // RECEIVE COPY RESULTS
        s(0x84, 0x03, 0x84, 0x1F, 0, 0, 0, 0, 0, 0, 0, 0, FF, FF, FF, FF, 0, CTRL),
        e(0x88, 0x88, 0xFC, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // READ(16)
        e(0x89, 0x89, 0xF8, FF, FF, FF, FF, FF, FF, FF, FF, 0, 0, 0, FF, 0x1F, CTRL), // COMPARE AND WRITE
        e(0x8A, 0x8A, 0xFC, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // WRITE(16)
        e(0x8B, 0x8B, 0xF8, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // ORWRITE(16)
        e(0x8E, 0x8E, 0xF6, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // WRITE AND VERIFY(16)
        e(0x8F, 0x8F, 0xF6, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // VERIFY(16)
        e(0x90, 0x90, 0x02, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // PRE-FETCH(16)
        e(0x91, 0x91, 0x02, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // SYNCHRONIZE CACHE(16)
        e(0x93, 0x93, 0xF9, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // WRITE SAME(16)
        e(0x9C, 0x9C, 0xF8, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // WRITE ATOMIC(16)
        s(0x9E, 0x10, 0x9E, 0x1F, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x01, CTRL), // READ CAPACITY(16)
        s(0x9E, 0x12, 0x9E, 0x1F, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0, CTRL), // GET LBA STATUS
        e(0xA0, 0xA0, 0, FF, 0, 0, 0, FF, FF, FF, FF, 0, CTRL), // REPORT LUNS
        s(0xA3, 0x0A, 0xA3, 0xFF, 0, 0, 0, 0, FF, FF, FF, FF, 0, CTRL), // REPORT TARGET PORT GROUPS (with ALUA)
        s(0xA3, 0x0C, 0xA3, 0x1F, 0x87, FF, FF, FF, FF, FF, FF, FF, 0, CTRL), // REPORT SUPPORTED OPERATION CODES
        s(0xA4, 0x0A, 0xA4, 0x1F, 0, 0, 0, 0, FF, FF, FF, FF, 0, CTRL), // SET TARGET PORT GROUPS (moving units)
        e(0xA8, 0xA8, 0xFC, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // READ(12)
        e(0xAA, 0xAA, 0xFC, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // WRITE(12)
        e(0xAE, 0xAE, 0xF6, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // WRITE AND VERIFY(12)
        e(0xAF, 0xAF, 0xF6, FF, FF, FF, FF, FF, FF, FF, FF, 0x1F, CTRL), // VERIFY(12)
        e(0xB7, 0xB7, 0x1F, 0, 0, 0, 0, FF, FF, FF, FF, 0, CTRL), // READ DEFECT DATA(12)
    };

    private SupportedOpcodes() {}

    private static Entry e(int opcode, int... usage) {
        return new Entry(opcode, NO_SERVICE_ACTION, usage);
    }

    private static Entry s(int opcode, int serviceAction, int... usage) {
        int[] u = usage.clone();
        u[1] = (u[1] & 0xE0) | serviceAction; // the service action itself is reported in the map
        return new Entry(opcode, serviceAction, u);
    }

    static boolean hasServiceActions(int opcode) {
        for (Entry e : COMMANDS) {
            if (e.opcode == opcode) {
                return e.serviceAction != NO_SERVICE_ACTION;
            }
        }
        return false;
    }

    static Entry find(int opcode, int serviceAction) {
        for (Entry e : COMMANDS) {
            if (e.opcode == opcode && (e.serviceAction == NO_SERVICE_ACTION || e.serviceAction == serviceAction)) {
                return e;
            }
        }
        return null;
    }

    /**
     * Whether {@code lu} serves {@code e}: SANITIZE BLOCK ERASE needs a store that tracks allocation, REPORT TARGET PORT
     * GROUPS a target with ALUA, SET TARGET PORT GROUPS a unit that moves between gateways.
     */
    private static boolean offered(Entry e, LogicalUnit lu) {
        if (e.opcode == 0xA3 && e.serviceAction == 0x0A) {
            return lu != null && lu.portGroups().configured(); // REPORT TARGET PORT GROUPS: only with ALUA (TPGS 01b)
        }
        if (e.opcode == 0xA4 && e.serviceAction == 0x0A) {
            return lu != null && lu.ownership() != null; // SET TARGET PORT GROUPS: units that move (TPGS 11b)
        }
        return !(e.opcode == 0x48 && e.serviceAction == Sanitize.BLOCK_ERASE)
                || lu == null
                || Sanitize.offersBlockErase(lu);
    }

    static SenseReason report(ScsiTask t, ByteBuf out) {
        LogicalUnit lu = t.unit;
        byte[] c = t.cdb;
        boolean timeouts = (c[2] & 0x80) != 0;
        int options = c[2] & 0x07;
        int opcode = c[3] & 0xFF;
        int serviceAction = Cdb.u16(c, 4);
        switch (options) {
            case 0 -> {
                int lengthAt = out.writerIndex();
                out.writeInt(0);
                for (Entry e : COMMANDS) {
                    if (!offered(e, lu)) {
                        continue;
                    }
                    out.writeByte(e.opcode);
                    out.writeByte(0);
                    out.writeShort(Math.max(0, e.serviceAction));
                    out.writeByte(0);
                    out.writeByte((timeouts ? 0x02 : 0) | (e.serviceAction != NO_SERVICE_ACTION ? 0x01 : 0));
                    out.writeShort(e.usage.length);
                    if (timeouts) {
                        writeTimeouts(out);
                    }
                }
                out.setInt(lengthAt, out.writerIndex() - lengthAt - 4);
                return null;
            }
            case 1 -> {
                if (hasServiceActions(opcode)) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                return one(find(opcode, 0), timeouts, out);
            }
            case 2 -> {
                if (!hasServiceActions(opcode)) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                return one(offeredOrNull(find(opcode, serviceAction), lu), timeouts, out);
            }
            default -> { // 3: service action only if the opcode has them
                return one(
                        offeredOrNull(find(opcode, hasServiceActions(opcode) ? serviceAction : 0), lu), timeouts, out);
            }
        }
    }

    private static Entry offeredOrNull(Entry e, LogicalUnit lu) {
        return e != null && offered(e, lu) ? e : null;
    }

    private static SenseReason one(Entry e, boolean timeouts, ByteBuf out) {
        out.writeByte(0);
        if (e == null) {
            out.writeByte(0x01); // SUPPORT: not supported
            out.writeShort(0);
            return null;
        }
        out.writeByte((timeouts ? 0x80 : 0) | 0x03); // CTDP, SUPPORT: supported as in the standard
        out.writeShort(e.usage.length);
        for (int u : e.usage) {
            out.writeByte(u);
        }
        if (timeouts) {
            writeTimeouts(out);
        }
        return null;
    }

    private static void writeTimeouts(ByteBuf out) {
        out.writeShort(0x0A);
        out.writeByte(0);
        out.writeByte(0);
        out.writeInt(NOMINAL_TIMEOUT_SECONDS);
        out.writeInt(RECOMMENDED_TIMEOUT_SECONDS);
    }
}
