package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** INQUIRY standard data and the vital product data pages (SPC-4 6.6, 7.8; SBC-3 6.5). */
final class InquiryPages {
    static final int SUPPORTED_VPD_PAGES = 0x00;
    static final int UNIT_SERIAL_NUMBER = 0x80;
    static final int DEVICE_IDENTIFICATION = 0x83;
    static final int BLOCK_LIMITS = 0xB0;
    static final int BLOCK_DEVICE_CHARACTERISTICS = 0xB1;
    static final int LOGICAL_BLOCK_PROVISIONING = 0xB2;
    private static final int[] PAGES = {
        SUPPORTED_VPD_PAGES, UNIT_SERIAL_NUMBER, DEVICE_IDENTIFICATION,
        BLOCK_LIMITS, BLOCK_DEVICE_CHARACTERISTICS, LOGICAL_BLOCK_PROVISIONING
    };
    private static final int[] VERSION_DESCRIPTORS = {
        0x00A0, // SAM-5
        0x0960, // iSCSI
        0x0460, // SPC-4
        0x04C0, // SBC-3
    };
    static final int STANDARD_LENGTH = 74;

    private InquiryPages() {}

    /** INQUIRY: standard data, or the EVPD page the CDB asks for. lu is null for a LUN that does not exist. */
    static SenseReason inquiry(ScsiTask t, LogicalUnit lu, ByteBuf out) {
        boolean evpd = (t.cdb[1] & 0x01) != 0;
        if (!evpd) {
            standard(lu, out);
            return null;
        }
        if (lu == null) {
            return SenseReason.LOGICAL_UNIT_NOT_SUPPORTED;
        }
        int page = t.cdb[2] & 0xFF;
        switch (page) {
            case SUPPORTED_VPD_PAGES -> {
                header(out, page, PAGES.length);
                for (int p : PAGES) {
                    out.writeByte(p);
                }
                return null;
            }
            case UNIT_SERIAL_NUMBER -> {
                byte[] serial = ascii(lu.identity.serial());
                header(out, page, serial.length);
                out.writeBytes(serial);
                return null;
            }
            case DEVICE_IDENTIFICATION -> {
                deviceIdentification(t.nexus, lu, out);
                return null;
            }
            case BLOCK_LIMITS -> {
                blockLimits(lu, out);
                return null;
            }
            case BLOCK_DEVICE_CHARACTERISTICS -> {
                header(out, page, 0x3C);
                out.writeShort(0x0001); // MEDIUM ROTATION RATE: non-rotating
                out.writeByte(0);
                // WABEREQ 01b: a block read after SANITIZE BLOCK ERASE succeeds (it reads zeros), 00b where BLOCK ERASE
                // is not offered; WACEREQ 00b: no CRYPTOGRAPHIC ERASE; nominal form factor not reported
                out.writeByte(Sanitize.offersBlockErase(lu) ? 0x40 : 0);
                out.writeZero(0x3C - 4);
                return null;
            }
            case LOGICAL_BLOCK_PROVISIONING -> {
                header(out, page, 4);
                out.writeByte(lu.provisioning.exponent(lu.blockCount, lu.blockSize)); // 0: no thresholds
                out.writeByte(0x80 | 0x40 | 0x20 | 0x04); // LBPU, LBPWS, LBPWS10, LBPRZ
                out.writeByte(0x02); // provisioning type: thin
                out.writeByte(0);
                return null;
            }
            default -> {
                return SenseReason.INVALID_FIELD_IN_CDB;
            }
        }
    }

    static void standard(LogicalUnit lu, ByteBuf out) {
        LunIdentity id = lu != null ? lu.identity : null;
        out.writeByte(lu != null ? 0x00 : 0x7F); // peripheral qualifier 0 / 3, type disk / unknown
        out.writeByte(0); // RMB 0
        out.writeByte(0x06); // SPC-4
        out.writeByte(0x10 | 0x02); // HISUP, response data format 2
        out.writeByte(STANDARD_LENGTH - 5);
        // SCCS 0, TPGS 01b with ALUA (implicit only) else 00b, 3PC (EXTENDED COPY), PROTECT 0
        out.writeByte(lu != null ? 0x08 | lu.portGroups().tpgsBits(lu.ownership() != null) : 0);
        out.writeByte(0);
        out.writeByte(0x02); // CMDQUE
        out.writeBytes(padded(id != null ? id.vendor() : LunIdentity.DEFAULT_VENDOR, 8));
        out.writeBytes(padded(id != null ? id.product() : LunIdentity.DEFAULT_PRODUCT, 16));
        out.writeBytes(padded(id != null ? id.revision() : LunIdentity.DEFAULT_REVISION, 4));
        out.writeZero(20); // vendor specific
        out.writeZero(2);
        for (int v : VERSION_DESCRIPTORS) {
            out.writeShort(v);
        }
        out.writeZero(16 - 2 * VERSION_DESCRIPTORS.length);
    }

    private static void deviceIdentification(ItNexus nexus, LogicalUnit lu, ByteBuf out) {
        int start = out.writerIndex();
        header(out, DEVICE_IDENTIFICATION, 0);
        // NAA, logical unit
        out.writeByte(0x01);
        out.writeByte(0x03);
        out.writeByte(0);
        out.writeByte(8);
        out.writeLong(lu.identity.naaIdentifier());
        // T10 vendor identification, logical unit
        byte[] vendor = padded(lu.identity.vendor(), 8);
        byte[] serial = ascii(lu.identity.serial());
        out.writeByte(0x02);
        out.writeByte(0x01);
        out.writeByte(0);
        out.writeByte(vendor.length + serial.length);
        out.writeBytes(vendor);
        out.writeBytes(serial);
        if (nexus != null) {
            // SCSI name string of the target port (iSCSI, UTF-8, PIV, association target port)
            scsiName(out, 0x98, nexus.targetPortName());
            // relative target port identifier
            out.writeByte(0x51);
            out.writeByte(0x94);
            out.writeByte(0);
            out.writeByte(4);
            out.writeShort(0);
            out.writeShort(nexus.relativeTargetPortId());
            if (lu.portGroups().configured()) {
                // target port group (binary, PIV, association target port)
                out.writeByte(0x51);
                out.writeByte(0x95);
                out.writeByte(0);
                out.writeByte(4);
                out.writeShort(0);
                out.writeShort(lu.portGroups().local().id());
            }
            // SCSI name string of the target device (association target device)
            scsiName(out, 0xA8, nexus.targetName());
        }
        out.setShort(start + 2, out.writerIndex() - start - 4);
    }

    private static void scsiName(ByteBuf out, int associationAndType, String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        int padded = (bytes.length + 1 + 3) & ~3; // NUL terminated, multiple of 4
        out.writeByte(0x53);
        out.writeByte(associationAndType);
        out.writeByte(0);
        out.writeByte(padded);
        out.writeBytes(bytes);
        out.writeZero(padded - bytes.length);
    }

    private static void blockLimits(LogicalUnit lu, ByteBuf out) {
        BlockLimits l = lu.limits;
        header(out, BLOCK_LIMITS, 0x3C);
        out.writeByte(0); // WSNZ 0: WRITE SAME of zero blocks runs to the last LBA
        out.writeByte(l.maxCompareAndWriteBlocks);
        out.writeShort(l.logicalPerPhysical); // optimal transfer length granularity
        out.writeInt(l.maxTransferBlocks);
        out.writeInt(l.optimalTransferBlocks);
        out.writeInt(l.maxTransferBlocks); // maximum prefetch length
        out.writeInt((int) l.maxUnmapBlocks);
        out.writeInt(l.maxUnmapDescriptors);
        out.writeInt(l.logicalPerPhysical); // optimal unmap granularity
        out.writeInt(0); // UGAVALID 0
        out.writeLong(l.maxWriteSameBlocks);
        out.writeInt(l.maxAtomicTransferBlocks);
        out.writeInt(l.atomicAlignment);
        out.writeInt(l.atomicGranularity);
        out.writeInt(l.maxAtomicTransferWithBoundaryBlocks);
        out.writeInt(l.maxAtomicBoundaryBlocks);
    }

    private static void header(ByteBuf out, int page, int length) {
        out.writeByte(0x00);
        out.writeByte(page);
        out.writeShort(length);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] padded(String s, int width) {
        byte[] b = new byte[width];
        Arrays.fill(b, (byte) ' ');
        byte[] src = ascii(s);
        System.arraycopy(src, 0, b, 0, Math.min(width, src.length));
        return b;
    }
}
