package io.numaiscsi.scsi;

/** The one place that turns a {@link SenseReason} into sense bytes (SPC-4 4.5): fixed 0x70 or descriptor 0x72. */
public final class SenseData {
  /** Longest sense this class writes: descriptor header plus one information descriptor. */
  public static final int MAX_LENGTH = 20;
  static final int FIXED_LENGTH = 18;

  private SenseData() {}

  /**
   * Writes sense data for {@code reason} at {@code dst[0..]} and returns its length.
   *
   * @param information INFORMATION field (e.g. miscompare offset); used only when informationValid
   */
  public static int encode(byte[] dst, SenseReason reason, boolean descriptorFormat,
                           long information, boolean informationValid) {
    java.util.Arrays.fill(dst, 0, MAX_LENGTH, (byte) 0);
    if (descriptorFormat) {
      dst[0] = 0x72;
      dst[1] = (byte) reason.senseKey();
      dst[2] = (byte) reason.asc();
      dst[3] = (byte) reason.ascq();
      if (!informationValid) {
        return 8;
      }
      dst[7] = 12;
      dst[8] = 0x00;        // information descriptor
      dst[9] = 0x0A;
      dst[10] = (byte) 0x80; // VALID
      Cdb.putLong(dst, 12, information);
      return 20;
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
    return FIXED_LENGTH;
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
