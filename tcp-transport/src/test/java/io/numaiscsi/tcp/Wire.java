package io.numaiscsi.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/** Initiator-side PDU bytes for tests, laid out per RFC 7143 section 11 (no digests). */
final class Wire {
    private Wire() {}

    static ByteBuf pdu(byte[] bhs, byte[] data) {
        int len = data == null ? 0 : data.length;
        bhs[5] = (byte) (len >>> 16);
        bhs[6] = (byte) (len >>> 8);
        bhs[7] = (byte) len;
        ByteBuf b = Unpooled.buffer();
        b.writeBytes(bhs);
        if (len > 0) {
            b.writeBytes(data);
            b.writeZero((4 - len % 4) % 4);
        }
        return b;
    }

    static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    static byte[] text(String... pairs) {
        StringBuilder sb = new StringBuilder();
        for (String p : pairs) {
            sb.append(p).append('\0');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Login Request CSG=1 -> NSG=3 with T=1 (operational negotiation straight to full feature). */
    static ByteBuf login(int itt, int cmdSN, byte[] text) {
        byte[] h = new byte[48];
        h[0] = 0x43; // immediate + LOGIN_REQUEST
        h[1] = (byte) (0x80 | (1 << 2) | 3);
        h[8] = 0x40; // ISID type: random
        h[13] = 0x01;
        putInt(h, 16, itt);
        putInt(h, 24, cmdSN);
        return pdu(h, text);
    }

    static ByteBuf scsiCommand(
            int itt,
            int cmdSN,
            int edtl,
            boolean read,
            boolean write,
            boolean finalBit,
            byte[] cdb,
            byte[] immediateData) {
        byte[] h = new byte[48];
        h[0] = 0x01;
        h[1] = (byte) ((finalBit ? 0x80 : 0) | (read ? 0x40 : 0) | (write ? 0x20 : 0) | 0x01);
        putInt(h, 16, itt);
        putInt(h, 20, edtl);
        putInt(h, 24, cmdSN);
        System.arraycopy(cdb, 0, h, 32, cdb.length);
        return pdu(h, immediateData);
    }

    static ByteBuf dataOut(int itt, int ttt, int dataSN, int offset, boolean finalBit, byte[] data) {
        byte[] h = new byte[48];
        h[0] = 0x05;
        h[1] = (byte) (finalBit ? 0x80 : 0);
        putInt(h, 16, itt);
        putInt(h, 20, ttt);
        putInt(h, 36, dataSN);
        putInt(h, 40, offset);
        return pdu(h, data);
    }

    static ByteBuf abortTask(int itt, int cmdSN, int referencedItt, int refCmdSN) {
        byte[] h = new byte[48];
        h[0] = 0x42; // immediate + TASK_MGMT_REQUEST
        h[1] = (byte) 0x81; // F + ABORT TASK
        putInt(h, 16, itt);
        putInt(h, 20, referencedItt);
        putInt(h, 24, cmdSN);
        putInt(h, 32, refCmdSN);
        return pdu(h, null);
    }

    static ByteBuf lunReset(int itt, int cmdSN) {
        byte[] h = new byte[48];
        h[0] = 0x42; // immediate + TASK_MGMT_REQUEST
        h[1] = (byte) 0x85; // F + LOGICAL UNIT RESET
        putInt(h, 16, itt);
        putInt(h, 20, 0xffffffff);
        putInt(h, 24, cmdSN);
        return pdu(h, null);
    }

    static byte[] read10(int lba, int blocks) {
        return new byte[] {
            0x28,
            0,
            (byte) (lba >>> 24),
            (byte) (lba >>> 16),
            (byte) (lba >>> 8),
            (byte) lba,
            0,
            (byte) (blocks >>> 8),
            (byte) blocks,
            0
        };
    }

    static byte[] write10(int lba, int blocks) {
        byte[] c = read10(lba, blocks);
        c[0] = 0x2a;
        return c;
    }
}
