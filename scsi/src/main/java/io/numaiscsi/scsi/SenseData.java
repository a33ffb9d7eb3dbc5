package io.numaiscsi.scsi;

import java.util.Arrays;

/** The one place that turns a {@link SenseReason} into sense bytes (SPC-4 4.5): fixed 0x70 or descriptor 0x72. */
public final class SenseData {
    /** Longest sense this class writes: descriptor header, an information and a sense-key specific descriptor. */
    public static final int MAX_LENGTH = 28;

    static final int FIXED_LENGTH = 18;
    /** No sense-key specific field pointer. */
    static final int NO_FIELD = -1;

    private SenseData() {}

    /**
     * Writes sense data for {@code reason} at {@code dst[0..]} and returns its length.
     *
     * @param information INFORMATION field (e.g. miscompare offset); used only when informationValid
     */
    public static int encode(
            byte[] dst, SenseReason reason, boolean descriptorFormat, long information, boolean informationValid) {
        return encode(dst, reason, descriptorFormat, information, informationValid, NO_FIELD);
    }

    /**
     * As above, plus a sense-key specific field pointer to CDB byte {@code cdbField} (SPC-4 4.5.2.4.2: which field
     * was invalid) unless it is {@link #NO_FIELD}.
     */
    static int encode(
            byte[] dst,
            SenseReason reason,
            boolean descriptorFormat,
            long information,
            boolean informationValid,
            int cdbField) {
        return encodeKeySpecific(
                dst,
                reason,
                descriptorFormat,
                information,
                informationValid,
                cdbField == NO_FIELD ? NO_FIELD : cdbFieldPointer(cdbField));
    }

    /**
     * Sense with a PROGRESS INDICATION (SPC-4 4.5.2.4.4): {@code progress} 65536ths of the operation (a sanitize) are
     * done.
     */
    static int encodeProgress(byte[] dst, SenseReason reason, boolean descriptorFormat, int progress) {
        return encodeKeySpecific(
                dst, reason, descriptorFormat, 0, false, 0x80_0000 | Math.max(0, Math.min(0xFFFF, progress)));
    }

    /** The SENSE KEY SPECIFIC bytes (SKSV set) pointing at CDB byte {@code cdbField}, no bit pointer. */
    static int cdbFieldPointer(int cdbField) {
        return 0xC0_0000 | (cdbField & 0xFFFF);
    }

    /**
     * The SENSE KEY SPECIFIC bytes (SKSV set) pointing at byte {@code field} of the parameter list (C/D 0; for COPY
     * ABORTED the same layout is a segment pointer with SD 0, relative to the parameter list, SPC-4 4.5.2.4.5), with the
     * bit pointer when {@code bit} is 0..7.
     */
    static int parameterFieldPointer(int field, int bit) {
        int bits = bit >= 0 && bit <= 7 ? 0x08 | bit : 0;
        return (0x80 | bits) << 16 | Math.min(field, 0xFFFF);
    }

    /**
     * Writes sense data with the 3-byte SENSE KEY SPECIFIC value {@code keySpecific} (SKSV included), or none when it
     * is {@link #NO_FIELD}.
     */
    static int encodeKeySpecific(
            byte[] dst,
            SenseReason reason,
            boolean descriptorFormat,
            long information,
            boolean informationValid,
            int keySpecific) {
        Arrays.fill(dst, 0, MAX_LENGTH, (byte) 0);
        if (descriptorFormat) {
            dst[0] = 0x72;
            dst[1] = (byte) reason.senseKey();
            dst[2] = (byte) reason.asc();
            dst[3] = (byte) reason.ascq();
            int at = 8;
            if (informationValid) {
                dst[at] = 0x00; // information descriptor
                dst[at + 1] = 0x0A;
                dst[at + 2] = (byte) 0x80; // VALID
                Cdb.putLong(dst, at + 4, information);
                at += 12;
            }
            if (keySpecific != NO_FIELD) {
                dst[at] = 0x02; // sense key specific descriptor
                dst[at + 1] = 0x06;
                keySpecific(dst, at + 4, keySpecific);
                at += 8;
            }
            dst[7] = (byte) (at - 8);
            return at;
        }
        boolean fits = informationValid && (information >>> 32) == 0;
        dst[0] = (byte) (fits ? 0xF0 : 0x70);
        dst[2] = (byte) reason.senseKey();
        if (fits) {
            Cdb.putInt(dst, 3, (int) information);
        }
        dst[7] = FIXED_LENGTH - 8;
        dst[12] = (byte) reason.asc();
        dst[13] = (byte) reason.ascq();
        if (keySpecific != NO_FIELD) {
            keySpecific(dst, 15, keySpecific);
        }
        return FIXED_LENGTH;
    }

    private static void keySpecific(byte[] dst, int at, int value) {
        dst[at] = (byte) (value >>> 16);
        dst[at + 1] = (byte) (value >>> 8);
        dst[at + 2] = (byte) value;
    }

    /** Sense key of encoded sense bytes, either format. */
    public static int senseKey(byte[] sense) {
        return (sense[0] & 0x7F) >= 0x72 ? sense[1] & 0x0F : sense[2] & 0x0F;
    }

    /** ASC and ASCQ of encoded sense bytes as {@code asc << 8 | ascq}, either format. */
    public static int ascAscq(byte[] sense) {
        return (sense[0] & 0x7F) >= 0x72
                ? (sense[2] & 0xFF) << 8 | (sense[3] & 0xFF)
                : (sense[12] & 0xFF) << 8 | (sense[13] & 0xFF);
    }
}
