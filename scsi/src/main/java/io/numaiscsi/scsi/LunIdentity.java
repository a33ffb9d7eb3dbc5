package io.numaiscsi.scsi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;

/**
 * Identity reported in INQUIRY and VPD pages. Stable across restarts: derived from configuration,
 * never random, so initiators (multipath, VMware) recognise the same disk.
 *
 * @param naaIdentifier 64-bit NAA designator; {@link #derive} uses NAA 3 (locally assigned)
 */
public record LunIdentity(String vendor, String product, String revision, String serial, long naaIdentifier) {
    static final String DEFAULT_VENDOR = "NUMAISCS";
    static final String DEFAULT_PRODUCT = "NUMA-iSCSI Disk";
    static final String DEFAULT_REVISION = "0001";

    public LunIdentity {
        checkAscii("vendor", vendor, 8);
        checkAscii("product", product, 16);
        checkAscii("revision", revision, 4);
        checkAscii("serial", serial, 64);
        if (serial.isEmpty()) {
            throw new IllegalArgumentException("serial must not be empty");
        }
    }

    /** Deterministic identity for LUN {@code lun} of target {@code targetName}. */
    public static LunIdentity derive(String targetName, int lun, String serialOrNull) {
        Objects.requireNonNull(targetName, "targetName");
        byte[] digest = sha256(targetName.toLowerCase(Locale.ROOT) + "/" + lun);
        long bits = 0;
        for (int i = 0; i < 8; i++) {
            bits = bits << 8 | (digest[i] & 0xFF);
        }
        long naa = 3L << 60 | (bits & 0x0FFF_FFFF_FFFF_FFFFL);
        String serial = serialOrNull != null ? serialOrNull : HexFormat.of().formatHex(digest, 0, 8);
        return new LunIdentity(DEFAULT_VENDOR, DEFAULT_PRODUCT, DEFAULT_REVISION, serial, naa);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is mandatory in every JRE", e);
        }
    }

    private static void checkAscii(String what, String value, int max) {
        Objects.requireNonNull(value, what);
        if (value.length() > max) {
            throw new IllegalArgumentException(what + " longer than " + max + " characters: " + value);
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                throw new IllegalArgumentException(what + " must be printable ASCII: " + value);
            }
        }
    }
}
