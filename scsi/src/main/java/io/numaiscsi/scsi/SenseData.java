package io.numaiscsi.scsi;

/** The one place that turns a {@link SenseReason} into sense bytes (SPC-4 4.5): fixed 0x70 or descriptor 0x72. */
public final class SenseData {
  /** Longest sense this class writes: descriptor header, an information and a sense-key specific descriptor. */
  public static final int MAX_LENGTH = 28;
  static final int FIXED_LENGTH = 18;
  /** No sense-key specific field pointer. */
  static final int NO_FIELD = -1;
  /** Sense-key specific byte 0: SKSV; with C/D = 1 the value is a FIELD POINTER into the CDB (no bit pointer). */
  private static final int SKSV = 0x80;
  private static final int FIELD_POINTER = SKSV | 0x40;

  private SenseData() {}

  /**
   * Writes sense data for {@code reason} at {@code dst[0..]} and returns its length.
   *
   * @param information INFORMATION field (e.g. miscompare offset); used only when informationValid
   */
  public static int encode(byte[] dst, SenseReason reason, boolean descriptorFormat,
                           long information, boolean informationValid) {
    return encode(dst, reason, descriptorFormat, information, informationValid, NO_FIELD);
  }

  /**
   * As above, plus a sense-key specific field pointer to CDB byte {@code cdbField} (SPC-4 4.5.2.4.2: which field
   * was invalid) unless it is {@link #NO_FIELD}.
   */
  static int encode(byte[] dst, SenseReason reason, boolean descriptorFormat,
                    long information, boolean informationValid, int cdbField) {
    return encode(dst, reason, descriptorFormat, information, informationValid,
        cdbField == NO_FIELD ? 0 : FIELD_POINTER, cdbField);
  }

  /**
   * Sense with a PROGRESS INDICATION (SPC-4 4.5.2.4.4): {@code progress} 65536ths of the operation (a sanitize) are
   * done.
   */
  static int encodeProgress(byte[] dst, SenseReason reason, boolean descriptorFormat, int progress) {
    return encode(dst, reason, descriptorFormat, 0, false, SKSV, Math.max(0, Math.min(0xFFFF, progress)));
  }

  private static int encode(byte[] dst, SenseReason reason, boolean descriptorFormat,
                            long information, boolean informationValid, int sksFlags, int sksValue) {
    java.util.Arrays.fill(dst, 0, MAX_LENGTH, (byte) 0);
    if (descriptorFormat) {
      dst[0] = 0x72;
      dst[1] = (byte) reason.senseKey();
      dst[2] = (byte) reason.asc();
      dst[3] = (byte) reason.ascq();
      int at = 8;
      if (informationValid) {
        dst[at] = 0x00;        // information descriptor
        dst[at + 1] = 0x0A;
        dst[at + 2] = (byte) 0x80; // VALID
        Cdb.putLong(dst, at + 4, information);
        at += 12;
      }
      if (sksFlags != 0) {
        dst[at] = 0x02;        // sense key specific descriptor
        dst[at + 1] = 0x06;
        senseKeySpecific(dst, at + 4, sksFlags, sksValue);
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
    if (sksFlags != 0) {
      senseKeySpecific(dst, 15, sksFlags, sksValue);
    }
    return FIXED_LENGTH;
  }

  private static void senseKeySpecific(byte[] dst, int at, int flags, int value) {
    dst[at] = (byte) flags;
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
        ? (sense[2] & 0xFF) << 8 | sense[3] & 0xFF
        : (sense[12] & 0xFF) << 8 | sense[13] & 0xFF;
  }
}
