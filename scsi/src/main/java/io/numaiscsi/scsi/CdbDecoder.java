package io.numaiscsi.scsi;

/**
 * Decodes and validates a CDB and binds its execute step (LIO's sbc_parse_cdb falling back to
 * spc_parse_cdb): LBA and transfer length, flags, allocation or parameter list length, and the
 * number of bytes the transport must collect. Returns a {@link SenseReason} on failure, null when bound.
 */
final class CdbDecoder {
    private CdbDecoder() {}

    static SenseReason decode(ScsiTask t, LogicalUnit lu) {
        byte[] c = t.cdb;
        int op = c[0] & 0xFF;
        int length = Cdb.lengthOf(op);
        if (length < 0) {
            return SenseReason.INVALID_COMMAND_OPERATION_CODE;
        }
        if (t.cdbLength < length) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        if ((c[length - 1] & 0x04) != 0) {
            return SenseReason.INVALID_FIELD_IN_CDB; // NACA: NormACA is not supported
        }
        if (lu != null) {
            SenseReason r = decodeSbc(t, lu, c, op);
            if (r != null || t.kind != null) {
                return r;
            }
        }
        return decodeSpc(t, lu, c, op);
    }

    // ---- SBC-3 ----

    private static SenseReason decodeSbc(ScsiTask t, LogicalUnit lu, byte[] c, int op) {
        switch (op) {
            case 0x08, 0x0A -> { // READ(6), WRITE(6)
                long blocks = Cdb.u8(c, 4);
                return readWrite(
                        t,
                        lu,
                        op == 0x08 ? CommandKind.READ : CommandKind.WRITE,
                        Cdb.u24(c, 1) & 0x1F_FFFF,
                        blocks == 0 ? 256 : blocks,
                        false);
            }
            case 0x28, 0x2A, 0x2E -> { // READ(10), WRITE(10), WRITE AND VERIFY(10)
                return readWrite(t, lu, rwKind(op), Cdb.u32(c, 2), Cdb.u16(c, 7), true);
            }
            case 0xA8, 0xAA, 0xAE -> { // READ(12), WRITE(12), WRITE AND VERIFY(12)
                return readWrite(t, lu, rwKind(op), Cdb.u32(c, 2), Cdb.u32(c, 6), true);
            }
            case 0x88, 0x8A, 0x8E -> { // READ(16), WRITE(16), WRITE AND VERIFY(16)
                return readWrite(t, lu, rwKind(op), Cdb.u64(c, 2), Cdb.u32(c, 10), true);
            }
            case 0x2F -> { // VERIFY(10)
                return verify(t, lu, c, Cdb.u32(c, 2), Cdb.u16(c, 7));
            }
            case 0xAF -> { // VERIFY(12)
                return verify(t, lu, c, Cdb.u32(c, 2), Cdb.u32(c, 6));
            }
            case 0x8F -> { // VERIFY(16)
                return verify(t, lu, c, Cdb.u64(c, 2), Cdb.u32(c, 10));
            }
            case 0x34 -> { // PRE-FETCH(10)
                return ranged(t, lu, CommandKind.PRE_FETCH, Cdb.u32(c, 2), Cdb.u16(c, 7));
            }
            case 0x90 -> { // PRE-FETCH(16)
                return ranged(t, lu, CommandKind.PRE_FETCH, Cdb.u64(c, 2), Cdb.u32(c, 10));
            }
            case 0x35 -> { // SYNCHRONIZE CACHE(10)
                return ranged(t, lu, CommandKind.SYNCHRONIZE_CACHE, Cdb.u32(c, 2), Cdb.u16(c, 7));
            }
            case 0x91 -> { // SYNCHRONIZE CACHE(16)
                return ranged(t, lu, CommandKind.SYNCHRONIZE_CACHE, Cdb.u64(c, 2), Cdb.u32(c, 10));
            }
            case 0x41 -> { // WRITE SAME(10)
                return writeSame(t, lu, c, Cdb.u32(c, 2), Cdb.u16(c, 7), false);
            }
            case 0x93 -> { // WRITE SAME(16)
                return writeSame(t, lu, c, Cdb.u64(c, 2), Cdb.u32(c, 10), (c[1] & 0x01) != 0);
            }
            case 0x42 -> { // UNMAP
                if ((c[1] & 0x01) != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // ANCHOR: anchored state not supported
                }
                int parameterListLength = Cdb.u16(c, 7);
                if (parameterListLength > 0 && parameterListLength < 8) {
                    return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
                }
                t.kind = CommandKind.UNMAP;
                t.dataOutLength = parameterListLength;
                return null;
            }
            case 0x89 -> { // COMPARE AND WRITE
                if ((c[1] & 0xE0) != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                int blocks = Cdb.u8(c, 13);
                if (blocks > lu.limits.maxCompareAndWriteBlocks) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                SenseReason r = range(lu, Cdb.u64(c, 2), blocks);
                if (r != null) {
                    return r;
                }
                t.kind = CommandKind.COMPARE_AND_WRITE;
                t.lba = Cdb.u64(c, 2);
                t.blocks = blocks;
                t.fua = (c[1] & 0x08) != 0;
                t.dataOutLength = 2 * blocks * lu.blockSize;
                return null;
            }
            case 0x8B -> { // ORWRITE(16): ORPROTECT sits where WRPROTECT does
                return readWrite(t, lu, CommandKind.ORWRITE, Cdb.u64(c, 2), Cdb.u32(c, 10), true);
            }
            case 0x9C -> { // WRITE ATOMIC(16)
                return writeAtomic(t, lu, c);
            }
            case 0x48 -> { // SANITIZE
                return Sanitize.decode(t, lu, c);
            }
            case 0x37 -> { // READ DEFECT DATA(10)
                t.kind = CommandKind.READ_DEFECT_DATA;
                t.allocationLength = Cdb.u16(c, 7);
                return null;
            }
            case 0xB7 -> { // READ DEFECT DATA(12)
                t.kind = CommandKind.READ_DEFECT_DATA;
                t.allocationLength = (int) Math.min(Integer.MAX_VALUE, Cdb.u32(c, 6));
                return null;
            }
            case 0x9E -> { // SERVICE ACTION IN(16)
                int serviceAction = c[1] & 0x1F;
                t.allocationLength = (int) Math.min(Integer.MAX_VALUE, Cdb.u32(c, 10));
                if (serviceAction == 0x10) {
                    t.kind = CommandKind.READ_CAPACITY_16;
                    return null;
                }
                if (serviceAction == 0x12) {
                    long lba = Cdb.u64(c, 2);
                    if (lba < 0 || lba >= lu.blockCount) {
                        return SenseReason.LBA_OUT_OF_RANGE;
                    }
                    t.kind = CommandKind.GET_LBA_STATUS;
                    t.lba = lba;
                    return null;
                }
                return SenseReason.INVALID_FIELD_IN_CDB;
            }
            case 0x25 -> { // READ CAPACITY(10)
                boolean pmi = (c[8] & 0x01) != 0;
                if (!pmi && Cdb.u32(c, 2) != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                t.kind = CommandKind.READ_CAPACITY_10;
                t.allocationLength = 8;
                return null;
            }
            default -> {
                return null;
            }
        }
    }

    private static CommandKind rwKind(int op) {
        return switch (op) {
            case 0x28, 0xA8, 0x88 -> CommandKind.READ;
            case 0x2E, 0xAE, 0x8E -> CommandKind.WRITE_AND_VERIFY;
            default -> CommandKind.WRITE;
        };
    }

    private static SenseReason readWrite(
            ScsiTask t, LogicalUnit lu, CommandKind kind, long lba, long blocks, boolean hasFlags) {
        byte[] c = t.cdb;
        if (hasFlags) {
            if ((c[1] & 0xE0) != 0) {
                return SenseReason.INVALID_FIELD_IN_CDB; // RDPROTECT/WRPROTECT: no protection information
            }
            t.fua = (c[1] & 0x08) != 0;
        }
        SenseReason r = range(lu, lba, blocks);
        if (r != null) {
            return r;
        }
        if (blocks > lu.limits.maxTransferBlocks) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        t.kind = kind;
        t.lba = lba;
        t.blocks = blocks;
        if (kind != CommandKind.READ) {
            t.dataOutLength = (int) blocks * lu.blockSize;
        }
        return null;
    }

    /**
     * WRITE ATOMIC(16) (SBC-4 5.48): the range is checked first (an out-of-range write is LBA OUT OF RANGE whatever its
     * length), then the Block Limits atomic fields: length, boundary, alignment, granularity.
     */
    private static SenseReason writeAtomic(ScsiTask t, LogicalUnit lu, byte[] c) {
        if ((c[1] & 0xE0) != 0) {
            return SenseReason.INVALID_FIELD_IN_CDB; // WRPROTECT: no protection information
        }
        long lba = Cdb.u64(c, 2);
        int boundary = Cdb.u16(c, 10);
        int blocks = Cdb.u16(c, 12);
        SenseReason r = range(lu, lba, blocks);
        if (r != null) {
            return r;
        }
        BlockLimits l = lu.limits;
        long max = boundary == 0 ? l.maxAtomicTransferBlocks : l.maxAtomicTransferWithBoundaryBlocks;
        if (blocks > max
                || boundary > l.maxAtomicBoundaryBlocks
                || (l.atomicAlignment > 1 && lba % l.atomicAlignment != 0)
                || (l.atomicGranularity > 1 && blocks % l.atomicGranularity != 0)) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        t.kind = CommandKind.WRITE_ATOMIC;
        t.lba = lba;
        t.blocks = blocks;
        t.fua = (c[1] & 0x08) != 0;
        t.dataOutLength = blocks * lu.blockSize;
        return null;
    }

    private static SenseReason verify(ScsiTask t, LogicalUnit lu, byte[] c, long lba, long blocks) {
        if ((c[1] & 0xE0) != 0) {
            return SenseReason.INVALID_FIELD_IN_CDB; // VRPROTECT
        }
        int byteCheck = (c[1] >>> 1) & 0x03;
        if (byteCheck > 1) {
            return SenseReason.INVALID_FIELD_IN_CDB; // 10b reserved, 11b not supported
        }
        SenseReason r = range(lu, lba, blocks);
        if (r != null) {
            return r;
        }
        if (blocks > lu.limits.maxTransferBlocks) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        t.kind = CommandKind.VERIFY;
        t.lba = lba;
        t.blocks = blocks;
        t.byteCheck = byteCheck;
        t.dataOutLength = byteCheck == 1 ? (int) blocks * lu.blockSize : 0;
        return null;
    }

    /** PRE-FETCH and SYNCHRONIZE CACHE: a range check; zero blocks means "to the end of the medium". */
    private static SenseReason ranged(ScsiTask t, LogicalUnit lu, CommandKind kind, long lba, long blocks) {
        SenseReason r = range(lu, lba, blocks);
        if (r != null) {
            return r;
        }
        t.kind = kind;
        t.lba = lba;
        t.blocks = blocks;
        return null;
    }

    private static SenseReason writeSame(ScsiTask t, LogicalUnit lu, byte[] c, long lba, long blocks, boolean ndob) {
        if ((c[1] & 0xE0) != 0) {
            return SenseReason.INVALID_FIELD_IN_CDB; // WRPROTECT
        }
        if ((c[1] & 0x10) != 0) {
            return SenseReason.INVALID_FIELD_IN_CDB; // ANCHOR
        }
        SenseReason r = range(lu, lba, blocks);
        if (r != null) {
            return r;
        }
        if (blocks == 0) {
            blocks = lu.blockCount - lba; // WSNZ 0: zero blocks is "to the last LBA"
        }
        // One command's work stays bounded: a range beyond MAXIMUM WRITE SAME LENGTH (a whole large LUN) is refused and
        // the initiator splits it (SBC-3 5.42).
        if (blocks > lu.limits.maxWriteSameBlocks) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        t.kind = CommandKind.WRITE_SAME;
        t.lba = lba;
        t.blocks = blocks;
        t.unmapBit = (c[1] & 0x08) != 0;
        t.noDataOutBuffer = ndob;
        t.dataOutLength = ndob ? 0 : lu.blockSize;
        return null;
    }

    /** LBA range check with overflow-safe arithmetic (LBA fields are unsigned 64-bit). */
    static SenseReason range(LogicalUnit lu, long lba, long blocks) {
        long capacity = lu.blockCount;
        if (lba < 0 || lba > capacity || blocks > capacity - lba) {
            return SenseReason.LBA_OUT_OF_RANGE;
        }
        return null;
    }

    // ---- SPC-4 ----

    private static SenseReason decodeSpc(ScsiTask t, LogicalUnit lu, byte[] c, int op) {
        switch (op) {
            case 0x03 -> {
                t.kind = CommandKind.REQUEST_SENSE;
                t.allocationLength = Cdb.u8(c, 4);
                return null;
            }
            case 0x12 -> { // INQUIRY
                if ((c[1] & 0x02) != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // CmdDt is obsolete
                }
                if ((c[1] & 0x01) == 0 && c[2] != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // page code without EVPD
                }
                t.kind = CommandKind.INQUIRY;
                t.allocationLength = Cdb.u16(c, 3);
                return null;
            }
            case 0xA0 -> { // REPORT LUNS
                int select = Cdb.u8(c, 2);
                long allocation = Cdb.u32(c, 6);
                if (select > 2 || allocation < 16) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                t.kind = CommandKind.REPORT_LUNS;
                t.allocationLength = (int) Math.min(Integer.MAX_VALUE, allocation);
                return null;
            }
            case 0xA3 -> { // MAINTENANCE IN
                if ((c[1] & 0x1F) == 0x0A && lu != null && lu.portGroups().configured()) {
                    // REPORT TARGET PORT GROUPS; without ALUA (TPGS 00b) the service action is as unknown as any other
                    if ((c[1] & 0xE0) >>> 5 > TargetPortGroups.EXTENDED_FORMAT) {
                        return SenseReason.INVALID_FIELD_IN_CDB;
                    }
                    t.kind = CommandKind.REPORT_TARGET_PORT_GROUPS;
                    t.allocationLength = (int) Math.min(Integer.MAX_VALUE, Cdb.u32(c, 6));
                    return null;
                }
                if ((c[1] & 0x1F) != 0x0C || (c[2] & 0x07) > 3) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                t.kind = CommandKind.REPORT_SUPPORTED_OPERATION_CODES;
                t.allocationLength = (int) Math.min(Integer.MAX_VALUE, Cdb.u32(c, 6));
                return null;
            }
            default -> {}
        }
        if (lu == null) {
            return SenseReason.LOGICAL_UNIT_NOT_SUPPORTED;
        }
        switch (op) {
            case 0x00 -> {
                t.kind = CommandKind.TEST_UNIT_READY;
                return null;
            }
            case 0x1A -> { // MODE SENSE(6)
                t.kind = CommandKind.MODE_SENSE;
                t.allocationLength = Cdb.u8(c, 4);
                return null;
            }
            case 0x5A -> { // MODE SENSE(10)
                t.kind = CommandKind.MODE_SENSE;
                t.allocationLength = Cdb.u16(c, 7);
                return null;
            }
            case 0x15, 0x55 -> { // MODE SELECT(6), MODE SELECT(10)
                if ((c[1] & 0x10) == 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // PF must be 1 (SP: ModePages)
                }
                t.kind = CommandKind.MODE_SELECT;
                t.dataOutLength = op == 0x15 ? Cdb.u8(c, 4) : Cdb.u16(c, 7);
                return null;
            }
            case 0x1B -> { // START STOP UNIT
                int powerCondition = (c[4] & 0xF0) >>> 4;
                if (powerCondition == 0 && (c[4] & 0x02) != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // LOEJ: the medium is not removable
                }
                t.kind = CommandKind.START_STOP_UNIT;
                return null;
            }
            case 0x4D -> { // LOG SENSE: the fields are checked by LogSense, which names them in the field pointer
                t.kind = CommandKind.LOG_SENSE;
                t.allocationLength = Cdb.u16(c, 7);
                return null;
            }
            case 0x1E -> { // PREVENT ALLOW MEDIUM REMOVAL
                t.kind = CommandKind.PREVENT_ALLOW_MEDIUM_REMOVAL;
                return null;
            }
            case 0x16, 0x17 -> { // RESERVE(6), RELEASE(6)
                if ((c[1] & 0x1F) != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // third party / extents
                }
                t.kind = op == 0x16 ? CommandKind.RESERVE : CommandKind.RELEASE;
                return null;
            }
            case 0x56, 0x57 -> { // RESERVE(10), RELEASE(10)
                if ((c[1] & 0x13) != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB; // 3RDPTY, LONGID
                }
                t.kind = op == 0x56 ? CommandKind.RESERVE : CommandKind.RELEASE;
                return null;
            }
            case 0x5E -> { // PERSISTENT RESERVE IN
                if (PrinServiceAction.of(c[1] & 0x1F) == null) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                t.kind = CommandKind.PERSISTENT_RESERVE_IN;
                t.allocationLength = Cdb.u16(c, 7);
                return null;
            }
            case 0xA4 -> { // MAINTENANCE OUT
                if ((c[1] & 0x1F) != 0x0A || lu.ownership() == null) {
                    // SET TARGET PORT GROUPS only for a unit that moves between gateways (TPGS 11b)
                    return SenseReason.INVALID_COMMAND_OPERATION_CODE;
                }
                long parameterListLength = Cdb.u32(c, 6);
                if (parameterListLength > SetTargetPortGroups.MAX_PARAMETER_LIST_LENGTH) {
                    return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
                }
                t.kind = CommandKind.SET_TARGET_PORT_GROUPS;
                t.dataOutLength = (int) parameterListLength;
                return null;
            }
            case 0x5F -> { // PERSISTENT RESERVE OUT
                int serviceAction = c[1] & 0x1F;
                if (ProutServiceAction.of(serviceAction) == null) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                long parameterListLength = Cdb.u32(c, 5);
                if (parameterListLength < PersistentReservations.PARAMETER_LIST_LENGTH || parameterListLength > 4096) {
                    return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
                }
                t.kind = CommandKind.PERSISTENT_RESERVE_OUT;
                t.dataOutLength = (int) parameterListLength;
                return null;
            }
            case 0x83 -> { // EXTENDED COPY (LID1 only)
                if ((c[1] & 0x1F) != 0x00) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                long parameterListLength = Cdb.u32(c, 10);
                if ((parameterListLength > 0 && parameterListLength < CopyManagerLimits.HEADER_LENGTH)
                        || parameterListLength > CopyManagerLimits.MAX_PARAMETER_LIST_LENGTH) {
                    return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
                }
                t.kind = CommandKind.EXTENDED_COPY;
                t.dataOutLength = (int) parameterListLength;
                return null;
            }
            case 0x84 -> { // RECEIVE COPY RESULTS: COPY STATUS, OPERATING PARAMETERS
                int serviceAction = c[1] & 0x1F;
                if (serviceAction != 0x00 && serviceAction != 0x03) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
                t.kind = CommandKind.RECEIVE_COPY_RESULTS;
                t.allocationLength = (int) Math.min(Integer.MAX_VALUE, Cdb.u32(c, 10));
                return null;
            }
            default -> {
                return SenseReason.INVALID_COMMAND_OPERATION_CODE;
            }
        }
    }
}
