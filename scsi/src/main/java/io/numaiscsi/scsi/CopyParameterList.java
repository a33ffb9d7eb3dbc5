package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.CopyManagerLimits.BLOCK_TO_BLOCK_SEGMENT;
import static io.numaiscsi.scsi.CopyManagerLimits.BLOCK_TO_BLOCK_SEGMENT_LENGTH;
import static io.numaiscsi.scsi.CopyManagerLimits.HEADER_LENGTH;
import static io.numaiscsi.scsi.CopyManagerLimits.IDENTIFICATION_TARGET_DESCRIPTOR;
import static io.numaiscsi.scsi.CopyManagerLimits.MAX_DESCRIPTOR_LIST_LENGTH;
import static io.numaiscsi.scsi.CopyManagerLimits.MAX_SEGMENT_BYTES;
import static io.numaiscsi.scsi.CopyManagerLimits.MAX_SEGMENT_DESCRIPTORS;
import static io.numaiscsi.scsi.CopyManagerLimits.MAX_TARGET_DESCRIPTORS;
import static io.numaiscsi.scsi.CopyManagerLimits.TARGET_DESCRIPTOR_LENGTH;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses and validates an EXTENDED COPY (LID1) parameter list (SPC-4 6.4.3): the header, identification target (CSCD)
 * descriptors (0xE4) naming units by their NAA designator (VPD page 0x83), and block-to-block segment descriptors
 * (0x02). Nothing is copied here: every descriptor is checked, every unit resolved and every range checked before the
 * first byte moves, so a bad list changes nothing. Errors carry the parameter list byte (and bit) they are about.
 */
final class CopyParameterList {
    private static final int CODE_SET_BINARY = 1;
    private static final int DESIGNATOR_NAA = 3;
    private static final int NAA_LENGTH = 8;
    private static final int MAX_DESIGNATOR_LENGTH = 20;

    /** Either a plan or why there is none. */
    record Outcome(CopyPlan plan, SenseReason error, int keySpecific) {
        static Outcome failed(SenseReason error, int field, int bit) {
            return new Outcome(null, error, SenseData.parameterFieldPointer(field, bit));
        }

        static Outcome failed(SenseReason error) {
            return new Outcome(null, error, SenseData.NO_FIELD);
        }
    }

    private CopyParameterList() {}

    /**
     * @param p        the parameter list from its reader index
     * @param length   bytes of it that arrived (at most the CDB's PARAMETER LIST LENGTH)
     * @param units    the units a target descriptor may name
     */
    static Outcome parse(ByteBuf p, int length, List<LogicalUnit> units) {
        int base = p.readerIndex();
        if (length < HEADER_LENGTH) {
            return Outcome.failed(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int listId = p.getUnsignedByte(base);
        int usage = (p.getUnsignedByte(base + 1) >>> 3) & 0x03;
        if (usage == 1) {
            return Outcome.failed(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 1, 4); // reserved LIST ID USAGE
        }
        if (usage == CopyPlan.NO_LIST_ID && listId != 0) {
            return Outcome.failed(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 0, 7);
        }
        int targetListLength = p.getUnsignedShort(base + 2);
        long segmentListLength = p.getUnsignedInt(base + 8);
        long inlineLength = p.getUnsignedInt(base + 12);
        if (HEADER_LENGTH + targetListLength + segmentListLength + inlineLength > length
                || targetListLength + segmentListLength > MAX_DESCRIPTOR_LIST_LENGTH) {
            return Outcome.failed(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        if (inlineLength != 0) {
            return Outcome.failed(
                    SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 12, 7); // MAXIMUM INLINE DATA LENGTH is 0
        }
        List<LogicalUnit> targets = new ArrayList<>();
        int at = HEADER_LENGTH;
        int targetsEnd = HEADER_LENGTH + targetListLength;
        while (at < targetsEnd) {
            if (targets.size() == MAX_TARGET_DESCRIPTORS) {
                return Outcome.failed(SenseReason.TOO_MANY_TARGET_DESCRIPTORS);
            }
            int type = p.getUnsignedByte(base + at);
            if (type != IDENTIFICATION_TARGET_DESCRIPTOR) {
                return Outcome.failed(SenseReason.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE, at, 7);
            }
            if (targetsEnd - at < TARGET_DESCRIPTOR_LENGTH) {
                return Outcome.failed(
                        SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 2, 7); // list ends inside a descriptor
            }
            Outcome bad = target(p, base, at, units, targets);
            if (bad != null) {
                return bad;
            }
            at += TARGET_DESCRIPTOR_LENGTH;
        }
        List<CopySegment> segments = new ArrayList<>();
        long segmentsEnd = targetsEnd + segmentListLength;
        while (at < segmentsEnd) {
            if (segments.size() == MAX_SEGMENT_DESCRIPTORS) {
                return Outcome.failed(SenseReason.TOO_MANY_SEGMENT_DESCRIPTORS);
            }
            if (segmentsEnd - at < 4) {
                return Outcome.failed(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 8, 7);
            }
            int type = p.getUnsignedByte(base + at);
            if (type != BLOCK_TO_BLOCK_SEGMENT) {
                return Outcome.failed(SenseReason.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE, at, 7);
            }
            if (p.getUnsignedShort(base + at + 2) != BLOCK_TO_BLOCK_SEGMENT_LENGTH - 4) {
                return Outcome.failed(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, at + 2, 7);
            }
            if (segmentsEnd - at < BLOCK_TO_BLOCK_SEGMENT_LENGTH) {
                return Outcome.failed(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 8, 7);
            }
            Outcome bad = segment(p, base, at, targets, segments);
            if (bad != null) {
                return bad;
            }
            at += BLOCK_TO_BLOCK_SEGMENT_LENGTH;
        }
        return new Outcome(new CopyPlan(listId, usage, List.copyOf(segments)), null, SenseData.NO_FIELD);
    }

    /** An identification descriptor at {@code at}: resolved to a unit added to {@code targets}, or why not (SPC-4 6.4.5.6). */
    private static Outcome target(ByteBuf p, int base, int at, List<LogicalUnit> units, List<LogicalUnit> targets) {
        // Byte 1 bits 7-5 (SPC-3's LU ID TYPE and NUL) are obsolete in SPC-4 and ignored, as libiscsi expects of an
        // SPC-4 device server: the designator alone names the unit.
        int flags = p.getUnsignedByte(base + at + 1);
        if ((flags & 0x1F) != 0) {
            return Outcome.failed(SenseReason.INCORRECT_COPY_TARGET_DEVICE_TYPE, at + 1, 4); // only block devices
        }
        int codeSet = p.getUnsignedByte(base + at + 4) & 0x0F;
        int associationAndType = p.getUnsignedByte(base + at + 5) & 0x3F;
        int designatorLength = p.getUnsignedByte(base + at + 7);
        if (designatorLength > MAX_DESIGNATOR_LENGTH) {
            return Outcome.failed(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, at + 7, 7);
        }
        LogicalUnit found = null;
        if (codeSet == CODE_SET_BINARY && associationAndType == DESIGNATOR_NAA && designatorLength == NAA_LENGTH) {
            long naa = p.getLong(base + at + 8);
            for (LogicalUnit lu : units) {
                if (lu.identity.naaIdentifier() == naa) {
                    found = lu;
                    break;
                }
            }
        }
        if (found == null) {
            return Outcome.failed(SenseReason.COPY_TARGET_DEVICE_NOT_REACHABLE, at + 4, 7);
        }
        int blockLength = p.getUnsignedMedium(base + at + 29);
        if (blockLength != found.blockSize) {
            return Outcome.failed(SenseReason.INCORRECT_COPY_TARGET_DEVICE_TYPE, at + 29, 7);
        }
        targets.add(found);
        return null;
    }

    /** A block-to-block segment descriptor at {@code at}: added to {@code segments}, or why not (SPC-4 6.4.6.5). */
    private static Outcome segment(ByteBuf p, int base, int at, List<LogicalUnit> targets, List<CopySegment> segments) {
        boolean destinationCount = (p.getUnsignedByte(base + at + 1) & 0x02) != 0; // DC: NUMBER OF BLOCKS in its blocks
        int sourceIndex = p.getUnsignedShort(base + at + 4);
        int destinationIndex = p.getUnsignedShort(base + at + 6);
        if (sourceIndex >= targets.size()) {
            return Outcome.failed(SenseReason.COPY_TARGET_DEVICE_NOT_REACHABLE, at + 4, 7);
        }
        if (destinationIndex >= targets.size()) {
            return Outcome.failed(SenseReason.COPY_TARGET_DEVICE_NOT_REACHABLE, at + 6, 7);
        }
        LogicalUnit source = targets.get(sourceIndex);
        LogicalUnit destination = targets.get(destinationIndex);
        if (destination.readOnly()) {
            return Outcome.failed(SenseReason.WRITE_PROTECTED);
        }
        long blocks = p.getUnsignedShort(base + at + 10);
        long bytes = blocks * (destinationCount ? destination.blockSize : source.blockSize);
        if (bytes > MAX_SEGMENT_BYTES) {
            return Outcome.failed(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, at + 10, 7);
        }
        if (bytes % source.blockSize != 0 || bytes % destination.blockSize != 0) {
            return Outcome.failed(SenseReason.UNEXPECTED_INEXACT_SEGMENT, at + 10, 7); // no residue handling (CAT, PAD)
        }
        long sourceLba = p.getLong(base + at + 12);
        long destinationLba = p.getLong(base + at + 20);
        if (CdbDecoder.range(source, sourceLba, bytes / source.blockSize) != null) {
            return Outcome.failed(SenseReason.COPY_ABORTED, at + 12, 7);
        }
        if (CdbDecoder.range(destination, destinationLba, bytes / destination.blockSize) != null) {
            return Outcome.failed(SenseReason.COPY_ABORTED, at + 20, 7);
        }
        segments.add(new CopySegment(
                source, destination, sourceLba * source.blockSize, destinationLba * destination.blockSize, bytes, at));
        return null;
    }
}
