package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import java.io.IOException;

/**
 * LOG SENSE (SPC-4 6.8): Supported Log Pages (00h), Supported Log Pages and Subpages (00h/FFh) and, on a unit whose
 * store reports LBA mapping resources, Logical Block Provisioning (0Ch, SBC-4 6.4.4). The values are the same for
 * every PAGE CONTROL: the provisioning parameters are neither thresholds nor resettable counters.
 */
final class LogSense {
    static final int SUPPORTED_PAGES = 0x00;
    static final int LOGICAL_BLOCK_PROVISIONING = 0x0C;
    static final int ALL_SUBPAGES = 0xFF;
    /** Parameter codes of page 0Ch; they match the THRESHOLD RESOURCE of the mode page's descriptors. */
    static final int AVAILABLE_LBA_MAPPING_RESOURCE_COUNT = ProvisioningThreshold.RESOURCE_AVAILABLE;

    static final int USED_LBA_MAPPING_RESOURCE_COUNT = ProvisioningThreshold.RESOURCE_USED;
    /** Parameter control byte: DU 0, TSD 0, ETC 0, TMC 0, FORMAT AND LINKING 11b (binary format list). */
    private static final int BINARY_LIST = 0x03;

    private static final int SCOPE_DEDICATED = 0x01;
    private static final int SCOPE_SHARED = 0x02;
    private static final int SP_OR_PPC_BYTE = 1;
    private static final int PAGE_CODE_BYTE = 2;
    private static final int SUBPAGE_CODE_BYTE = 3;
    private static final int PARAMETER_POINTER_BYTE = 5;

    private LogSense() {}

    /** Writes the page the CDB asks for; on a bad field, fails the task with its field pointer and returns false. */
    static boolean execute(ScsiTask t, LogicalUnit lu, ByteBuf out) {
        byte[] c = t.cdb;
        if ((c[1] & 0x03) != 0) {
            // SP: no log parameters are saved; PPC (obsolete): no "parameters changed since" list
            t.completeFailedAtCdbField(SenseReason.INVALID_FIELD_IN_CDB, SP_OR_PPC_BYTE);
            return false;
        }
        int page = c[2] & 0x3F;
        int subpage = c[3] & 0xFF;
        int pointer = Cdb.u16(c, 5);
        boolean provisioning = lu.provisioning.supported();
        if (page == SUPPORTED_PAGES && (subpage == 0 || subpage == ALL_SUBPAGES)) {
            if (pointer != 0) {
                t.completeFailedAtCdbField(SenseReason.INVALID_FIELD_IN_CDB, PARAMETER_POINTER_BYTE);
                return false;
            }
            supportedPages(subpage == ALL_SUBPAGES, provisioning, out);
            return true;
        }
        if (page != LOGICAL_BLOCK_PROVISIONING || !provisioning) {
            t.completeFailedAtCdbField(SenseReason.INVALID_FIELD_IN_CDB, PAGE_CODE_BYTE);
            return false;
        }
        if (subpage != 0) {
            t.completeFailedAtCdbField(SenseReason.INVALID_FIELD_IN_CDB, SUBPAGE_CODE_BYTE);
            return false;
        }
        if (pointer > USED_LBA_MAPPING_RESOURCE_COUNT) {
            t.completeFailedAtCdbField(SenseReason.INVALID_FIELD_IN_CDB, PARAMETER_POINTER_BYTE);
            return false;
        }
        long[] sample;
        try {
            sample = lu.provisioning.sample(lu.blockCount, lu.blockSize);
        } catch (IOException e) {
            t.completeFailed(SenseReason.INTERNAL_TARGET_FAILURE);
            return false;
        }
        provisioningPage(lu, sample[0], sample[1], pointer, out);
        return true;
    }

    private static void supportedPages(boolean withSubpages, boolean provisioning, ByteBuf out) {
        out.writeByte(withSubpages ? 0x40 : 0x00); // SPF
        out.writeByte(withSubpages ? ALL_SUBPAGES : 0);
        int lengthAt = out.writerIndex();
        out.writeShort(0);
        if (withSubpages) {
            out.writeByte(SUPPORTED_PAGES).writeByte(0);
            out.writeByte(SUPPORTED_PAGES).writeByte(ALL_SUBPAGES);
            if (provisioning) {
                out.writeByte(LOGICAL_BLOCK_PROVISIONING).writeByte(0);
            }
        } else {
            out.writeByte(SUPPORTED_PAGES);
            if (provisioning) {
                out.writeByte(LOGICAL_BLOCK_PROVISIONING);
            }
        }
        out.setShort(lengthAt, out.writerIndex() - lengthAt - 2);
    }

    /** Page 0Ch: the two counts in threshold sets (2^THRESHOLD EXPONENT blocks), from {@code pointer} on. */
    static void provisioningPage(LogicalUnit lu, long usedBlocks, long availableBlocks, int pointer, ByteBuf out) {
        int e = lu.provisioning.exponent(lu.blockCount, lu.blockSize);
        out.writeByte(LOGICAL_BLOCK_PROVISIONING);
        out.writeByte(0);
        int lengthAt = out.writerIndex();
        out.writeShort(0);
        if (pointer <= AVAILABLE_LBA_MAPPING_RESOURCE_COUNT) {
            parameter(
                    out,
                    AVAILABLE_LBA_MAPPING_RESOURCE_COUNT,
                    availableBlocks >>> e,
                    lu.provisioning.freeShared() ? SCOPE_SHARED : SCOPE_DEDICATED);
        }
        parameter(out, USED_LBA_MAPPING_RESOURCE_COUNT, (usedBlocks + (1L << e) - 1) >>> e, SCOPE_DEDICATED);
        out.setShort(lengthAt, out.writerIndex() - lengthAt - 2);
    }

    private static void parameter(ByteBuf out, int code, long count, int scope) {
        out.writeShort(code);
        out.writeByte(BINARY_LIST);
        out.writeByte(8);
        out.writeInt((int) Math.min(count, 0xFFFF_FFFFL));
        out.writeByte(scope);
        out.writeZero(3);
    }
}
