package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** PERSISTENT RESERVE IN (SPC-4 6.15): the parameter data of each service action, from the unit's state. */
final class PersistentReserveIn {
    private PersistentReserveIn() {}

    /** Writes the full parameter data of {@code serviceAction} (the caller clips it to the allocation length). */
    static SenseReason write(PersistentReservations pr, int serviceAction, ByteBuf out) {
        PrinServiceAction action = PrinServiceAction.of(serviceAction);
        if (action == null) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        switch (action) {
            case READ_KEYS -> {
                out.writeInt(pr.generation());
                out.writeInt(pr.keys().size() * 8);
                for (long k : pr.keys().values()) {
                    out.writeLong(k);
                }
            }
            case READ_RESERVATION -> {
                out.writeInt(pr.generation());
                ReservationType type = pr.reservationType();
                if (type == null) {
                    out.writeInt(0);
                    return null;
                }
                out.writeInt(16);
                out.writeLong(pr.holderKey());
                out.writeInt(0);
                out.writeByte(0);
                out.writeByte(type.code); // scope 0 (LU_SCOPE) in the high nibble
                out.writeShort(0);
            }
            case REPORT_CAPABILITIES -> {
                out.writeShort(8);
                out.writeByte(pr.store().persists() ? 0x01 : 0x00); // PTPL_C; RLR_C, CRH, SIP_C, ATP_C zero
                out.writeByte(0x90 | (pr.aptpl() ? 0x01 : 0x00)); // TMV, ALLOW COMMANDS 001b, PTPL_A
                out.writeByte(0x80 | 0x40 | 0x20 | 0x08 | 0x02);
                out.writeByte(0x01);
                out.writeShort(0);
            }
            case READ_FULL_STATUS -> readFullStatus(pr, out);
            default -> {
                return SenseReason.INVALID_FIELD_IN_CDB;
            }
        }
        return null;
    }

    private static void readFullStatus(PersistentReservations pr, ByteBuf out) {
        List<byte[]> ids = new ArrayList<>();
        int length = 0;
        for (ItNexus n : pr.keys().keySet()) {
            byte[] id = TransportId.encode(n);
            ids.add(id);
            length += 24 + id.length;
        }
        out.writeInt(pr.generation());
        out.writeInt(length);
        int i = 0;
        ReservationType type = pr.reservationType();
        for (Map.Entry<ItNexus, Long> e : pr.keys().entrySet()) {
            byte[] id = ids.get(i++);
            boolean holds = pr.isHolder(e.getKey());
            out.writeLong(e.getValue());
            out.writeInt(0);
            out.writeByte(holds ? 0x01 : 0x00);
            out.writeByte(holds ? type.code : 0);
            out.writeInt(0);
            out.writeShort(e.getKey().relativeTargetPortId());
            out.writeInt(id.length);
            out.writeBytes(id);
        }
    }
}
