package io.numaiscsi.scsi;

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
      if (cdbField != NO_FIELD) {
        dst[at] = 0x02;        // sense key specific descriptor
        dst[at + 1] = 0x06;
        fieldPointer(dst, at + 4, cdbField);
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
    if (cdbField != NO_FIELD) {
      fieldPointer(dst, 15, cdbField);
    }
    return FIXED_LENGTH;
  }

  /** SKSV, C/D = 1 (the field is in the CDB), no bit pointer, FIELD POINTER. */
  private static void fieldPointer(byte[] dst, int at, int cdbField) {
    dst[at] = (byte) 0xC0;
    dst[at + 1] = (byte) (cdbField >>> 8);
    dst[at + 2] = (byte) cdbField;
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
