package io.numaiscsi.fiotests;

/** The few CDBs the raw-socket tests send (SBC-3 / SPC-4). */
final class ScsiCdb {

    private ScsiCdb() {}

    static byte[] testUnitReady() {
        return new byte[6];
    }

    /** READ CAPACITY (10): 8 bytes, the last LBA and the block length. */
    static byte[] readCapacity10() {
        return new byte[] {0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    }

    /** READ CAPACITY (16) (SERVICE ACTION IN 10h), allocation length 32. */
    static byte[] readCapacity16() {
        return new byte[] {(byte) 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0};
    }

    static byte[] read10(long lba, int blocks) {
        return rw10(0x28, lba, blocks);
    }

    static byte[] prefetch10(long lba, int blocks) {
        return rw10(0x34, lba, blocks);
    }

    static byte[] write10(long lba, int blocks) {
        return rw10(0x2a, lba, blocks);
    }

    private static byte[] rw10(int opcode, long lba, int blocks) {
        byte[] cdb = new byte[10];
        cdb[0] = (byte) opcode;
        cdb[2] = (byte) (lba >>> 24);
        cdb[3] = (byte) (lba >>> 16);
        cdb[4] = (byte) (lba >>> 8);
        cdb[5] = (byte) lba;
        cdb[7] = (byte) (blocks >>> 8);
        cdb[8] = (byte) blocks;
        return cdb;
    }

    /** Recognisable, position-dependent bytes: a misplaced block shows up as a mismatch. */
    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + (i >>> 9) * 7 + seed);
        }
        return b;
    }
}
