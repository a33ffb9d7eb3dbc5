package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.ScsiCommandHeader;

/** The CDB of each SCSI Command PDU of one connection, assembled into one buffer reused for every command. */
final class CommandCdb {
    private final ByteBuf bytes = Unpooled.buffer(Pdu.BHS_LENGTH + 1024);

    /** The last CDB {@link #assemble} made, from index 0. */
    ByteBuf bytes() {
        return bytes;
    }

    /** CDB = the 16 bytes of the BHS plus an Extended CDB AHS if present; -1 for a malformed AHS. */
    int assemble(Pdu pdu) {
        bytes.clear();
        bytes.writeBytes(pdu.bhs(), ScsiCommandHeader.CDB_OFFSET, ScsiCommandHeader.CDB_LENGTH);
        ByteBuf ahs = pdu.ahs();
        if (ahs == null) {
            return ScsiCommandHeader.CDB_LENGTH;
        }
        int i = ahs.readerIndex();
        int end = ahs.writerIndex();
        while (i + 3 <= end) {
            int length = ahs.getUnsignedShort(i);
            int type = ahs.getUnsignedByte(i + 2);
            int padded = (3 + length + 3) & ~3;
            if (i + 3 + length > end || length < 1) {
                return -1;
            }
            if (type == 1) { // Extended CDB: one reserved byte, then the CDB bytes beyond the first 16
                int extra = length - 1;
                if (extra > bytes.writableBytes()) {
                    return -1;
                }
                bytes.writeBytes(ahs, i + 4, extra);
            }
            i += padded;
        }
        return bytes.readableBytes();
    }
}
