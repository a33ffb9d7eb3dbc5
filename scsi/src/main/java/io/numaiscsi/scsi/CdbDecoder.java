package io.numaiscsi.scsi;

/**
 * Decodes and validates a CDB and binds its execute step (LIO's sbc_parse_cdb falling back to
 * spc_parse_cdb, here {@link SpcCdbDecoder}): LBA and transfer length, flags, allocation or parameter list length,
 * and the number of bytes the transport must collect. Returns a {@link SenseReason} on failure, null when bound.
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
        return SpcCdbDecoder.decode(t, lu, c, op);
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
}
