package io.numaiscsi.scsi;

import java.io.ByteArrayOutputStream;

/** Builds EXTENDED COPY (LID1) parameter lists and CDBs for the copy tests, byte by byte as SPC-4 lays them out. */
final class CopyLists {
    private final ByteArrayOutputStream targets = new ByteArrayOutputStream();
    private final ByteArrayOutputStream segments = new ByteArrayOutputStream();
    private int listId = 1;
    private int usage = CopyPlan.HOLD;

    private CopyLists() {}

    static CopyLists list() {
        return new CopyLists();
    }

    CopyLists id(int listId, int usage) {
        this.listId = listId;
        this.usage = usage;
        return this;
    }

    /** An identification (0xE4) target descriptor naming {@code lu} by its NAA designator. */
    CopyLists target(LogicalUnit lu) {
        return target(0xE4, 0, lu.identity.naaIdentifier(), lu.blockSize);
    }

    CopyLists target(int type, int flags, long naa, int blockSize) {
        byte[] d = new byte[32];
        d[0] = (byte) type;
        d[1] = (byte) flags;
        d[4] = 0x01; // binary
        d[5] = 0x03; // association LU, NAA
        d[7] = 8;
        Cdb.putLong(d, 8, naa);
        d[29] = (byte) (blockSize >>> 16);
        d[30] = (byte) (blockSize >>> 8);
        d[31] = (byte) blockSize;
        targets.writeBytes(d);
        return this;
    }

    /** A block-to-block (0x02) segment descriptor. */
    CopyLists segment(int source, int destination, int blocks, long sourceLba, long destinationLba) {
        return segment(0x02, source, destination, blocks, sourceLba, destinationLba);
    }

    CopyLists segment(int type, int source, int destination, int blocks, long sourceLba, long destinationLba) {
        byte[] d = new byte[28];
        d[0] = (byte) type;
        d[3] = 0x18;
        d[5] = (byte) source;
        d[7] = (byte) destination;
        d[10] = (byte) (blocks >>> 8);
        d[11] = (byte) blocks;
        Cdb.putLong(d, 12, sourceLba);
        Cdb.putLong(d, 20, destinationLba);
        segments.writeBytes(d);
        return this;
    }

    byte[] bytes() {
        byte[] t = targets.toByteArray();
        byte[] s = segments.toByteArray();
        byte[] p = new byte[16 + t.length + s.length];
        p[0] = (byte) listId;
        p[1] = (byte) (usage << 3);
        p[2] = (byte) (t.length >>> 8);
        p[3] = (byte) t.length;
        Cdb.putInt(p, 8, s.length);
        System.arraycopy(t, 0, p, 16, t.length);
        System.arraycopy(s, 0, p, 16 + t.length, s.length);
        return p;
    }

    static byte[] extendedCopy(int parameterListLength) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x83;
        Cdb.putInt(c, 10, parameterListLength);
        return c;
    }

    static byte[] receiveCopyResults(int serviceAction, int listId) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x84;
        c[1] = (byte) serviceAction;
        c[2] = (byte) listId;
        Cdb.putInt(c, 10, 1024);
        return c;
    }
}
