package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.CopyLists.list;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every way an EXTENDED COPY parameter list is refused, with its sense and field pointer (SPC-4 6.4). */
class CopyParameterListTest {
    private static final long BLOCKS = 16384;
    private final LogicalUnit a = unit(0, 512);
    private final LogicalUnit b = unit(1, 512);
    private final LogicalUnit big = unit(2, 4096);
    private final List<LogicalUnit> units = List.of(a, b, big);

    private static LogicalUnit unit(int lun, int blockSize) {
        return new LogicalUnit(
                lun, LunIdentity.derive(Harness.TARGET, lun, null), new RamBlockDevice(BLOCKS * blockSize, blockSize));
    }

    private CopyParameterList.Outcome parse(byte[] p) {
        return parse(p, p.length);
    }

    private CopyParameterList.Outcome parse(byte[] p, int length) {
        return CopyParameterList.parse(Unpooled.wrappedBuffer(p), length, units);
    }

    private static void refused(CopyParameterList.Outcome o, SenseReason reason, int field, int bit) {
        assertNull(o.plan());
        assertEquals(reason, o.error());
        assertEquals(
                field < 0 ? SenseData.NO_FIELD : SenseData.parameterFieldPointer(field, bit),
                o.keySpecific(),
                "field pointer");
    }

    @Test
    void resolvesTargetsAndSegments() {
        CopyParameterList.Outcome o = parse(list().target(a)
                .target(b)
                .segment(0, 1, 100, 5, 7)
                .segment(1, 0, 3, 0, BLOCKS - 3)
                .bytes());
        assertNull(o.error());
        CopyPlan plan = o.plan();
        assertEquals(1, plan.listId());
        assertTrue(plan.holdsResults());
        assertEquals(
                new CopySegment(a, b, 5 * 512, 7 * 512, 100 * 512, 80),
                plan.segments().get(0));
        assertEquals(
                new CopySegment(b, a, 0, (BLOCKS - 3) * 512, 3 * 512, 108),
                plan.segments().get(1));
    }

    @Test
    void truncatedListsAreParameterListLengthErrors() {
        byte[] p = list().target(a).segment(0, 0, 1, 0, 1).bytes();
        refused(parse(p, 16 + 32 - 1), SenseReason.PARAMETER_LIST_LENGTH_ERROR, -1, 0);
        refused(parse(p, p.length - 1), SenseReason.PARAMETER_LIST_LENGTH_ERROR, -1, 0);
        refused(parse(p, 15), SenseReason.PARAMETER_LIST_LENGTH_ERROR, -1, 0);
    }

    @Test
    void descriptorListsLongerThanReportedAreParameterListLengthErrors() {
        CopyLists l = list();
        for (int i = 0; i <= CopyManagerLimits.MAX_TARGET_DESCRIPTORS; i++) {
            l.target(a);
        }
        for (int i = 0; i <= CopyManagerLimits.MAX_SEGMENT_DESCRIPTORS; i++) {
            l.segment(0, 0, 1, 0, 1);
        }
        refused(parse(l.bytes()), SenseReason.PARAMETER_LIST_LENGTH_ERROR, -1, 0);
    }

    @Test
    void tooManyDescriptors() {
        CopyLists targets = list();
        for (int i = 0; i <= CopyManagerLimits.MAX_TARGET_DESCRIPTORS; i++) {
            targets.target(a);
        }
        refused(parse(targets.segment(0, 0, 1, 0, 1).bytes()), SenseReason.TOO_MANY_TARGET_DESCRIPTORS, -1, 0);
        CopyLists segments = list().target(a);
        for (int i = 0; i <= CopyManagerLimits.MAX_SEGMENT_DESCRIPTORS; i++) {
            segments.segment(0, 0, 1, 0, 1);
        }
        refused(parse(segments.bytes()), SenseReason.TOO_MANY_SEGMENT_DESCRIPTORS, -1, 0);
    }

    @Test
    void unsupportedDescriptorTypes() {
        refused(
                parse(list().target(0xE0, 0, a.identity.naaIdentifier(), 512)
                        .segment(0, 0, 1, 0, 1)
                        .bytes()),
                SenseReason.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE,
                16,
                7);
        refused(
                parse(list().target(a).segment(0x03, 0, 0, 1, 0, 1).bytes()),
                SenseReason.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE,
                48,
                7);
    }

    @Test
    void targetDescriptorFields() {
        long naa = a.identity.naaIdentifier();
        assertNull(
                parse(list().target(0xE4, 0x80, naa, 512).segment(0, 0, 1, 0, 1).bytes())
                        .error(),
                "LU ID TYPE is obsolete in SPC-4");
        assertNull(
                parse(list().target(0xE4, 0x20, naa, 512).segment(0, 0, 1, 0, 1).bytes())
                        .error(),
                "NUL is obsolete in SPC-4");
        refused(
                parse(list().target(0xE4, 0x01, naa, 512).segment(0, 0, 1, 0, 1).bytes()),
                SenseReason.INCORRECT_COPY_TARGET_DEVICE_TYPE,
                17,
                4); // a stream device
        refused(
                parse(list().target(0xE4, 0, naa + 1, 512)
                        .segment(0, 0, 1, 0, 1)
                        .bytes()),
                SenseReason.COPY_TARGET_DEVICE_NOT_REACHABLE,
                20,
                7); // no unit with that designator
        refused(
                parse(list().target(0xE4, 0, naa, 4096).segment(0, 0, 1, 0, 1).bytes()),
                SenseReason.INCORRECT_COPY_TARGET_DEVICE_TYPE,
                45,
                7); // disk block length
    }

    @Test
    void headerFields() {
        refused(
                parse(list().id(1, 1).target(a).segment(0, 0, 1, 0, 1).bytes()),
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                1,
                4); // LIST ID USAGE 01b
        refused(
                parse(list().id(5, CopyPlan.NO_LIST_ID)
                        .target(a)
                        .segment(0, 0, 1, 0, 1)
                        .bytes()),
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                0,
                7); // a list identifier where there is none
        byte[] inline = list().target(a).segment(0, 0, 1, 0, 1).bytes();
        byte[] longer = Arrays.copyOf(inline, inline.length + 4);
        longer[15] = 4;
        refused(parse(longer), SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 12, 7);
    }

    @Test
    void segmentDescriptorFields() {
        refused(
                parse(list().target(a).segment(0, 1, 1, 0, 1).bytes()),
                SenseReason.COPY_TARGET_DEVICE_NOT_REACHABLE,
                54,
                7); // destination index past the targets
        refused(
                parse(list().target(a).segment(0, 0, 2048, 0, BLOCKS - 1).bytes()),
                SenseReason.COPY_ABORTED,
                68,
                7); // beyond the destination's last block
        refused(
                parse(list().target(a).segment(0, 0, 2, BLOCKS - 1, 0).bytes()),
                SenseReason.COPY_ABORTED,
                60,
                7); // beyond the source's last block
        byte[] length = list().target(a).segment(0, 0, 1, 0, 1).bytes();
        length[51] = 0x14;
        refused(parse(length), SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 50, 7);
    }

    @Test
    void segmentsAreBoundedAndExact() {
        refused(
                parse(list().target(big).segment(0, 0, 8193, 0, 9000).bytes()),
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                58,
                7); // more than MAXIMUM SEGMENT LENGTH
        refused(
                parse(list().target(a).target(big).segment(0, 1, 3, 0, 0).bytes()),
                SenseReason.UNEXPECTED_INEXACT_SEGMENT,
                90,
                7); // 3 x 512 bytes is not whole 4096-byte blocks
        CopyParameterList.Outcome whole =
                parse(list().target(a).target(big).segment(0, 1, 16, 0, 2).bytes());
        assertEquals(
                new CopySegment(a, big, 0, 2 * 4096, 8192, 80),
                whole.plan().segments().get(0));
    }

    @Test
    void readOnlyDestinationIsDataProtect() {
        b.readOnly(true);
        refused(parse(list().target(a).target(b).segment(0, 1, 1, 0, 0).bytes()), SenseReason.WRITE_PROTECTED, -1, 0);
        assertNull(
                parse(list().target(a).target(b).segment(1, 0, 1, 0, 0).bytes()).error(), "a read-only source is fine");
    }
}
