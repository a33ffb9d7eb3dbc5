package io.numaiscsi.config;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Validates iSCSI names (RFC 7143 "iSCSI Names"): {@code iqn.YYYY-MM.reversed.domain[:identifier]},
 * {@code eui.} + 16 hex digits, {@code naa.} + 16 or 32 hex digits. Names are compared after
 * case normalization, so the type designator and iqn. names must be written in lower case; only
 * the ASCII subset (a-z, 0-9, '-', '.', ':') is accepted.
 */
final class IscsiNames {

    /** RFC 7143: an iSCSI name is at most 223 bytes, UTF-8 encoded. */
    static final int MAX_BYTES = 223;

    private static final String FORMS =
            "use iqn.YYYY-MM.reversed.domain[:identifier], eui. + 16 hex digits, or naa. + 16 or 32 hex digits";

    private IscsiNames() {}

    /** The problem with {@code name}, or null when it is a valid iSCSI name. */
    static String problem(String name) {
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            return "\"" + name + "\" is longer than " + MAX_BYTES + " bytes";
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.startsWith("iqn.")) {
            if (!name.equals(lower)) {
                return "\"" + name + "\" must be lower case (iSCSI names are case-normalized); write \"" + lower + "\"";
            }
            return iqnProblem(name);
        }
        if (lower.startsWith("eui.") || lower.startsWith("naa.")) {
            String type = lower.substring(0, 4);
            if (!name.startsWith(type)) {
                return "\"" + name + "\": the type designator must be lower case (\"" + type + "\")";
            }
            String hex = name.substring(4);
            boolean eui = type.equals("eui.");
            boolean lengthOk = eui ? hex.length() == 16 : hex.length() == 16 || hex.length() == 32;
            if (!lengthOk || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                return "\"" + name + "\" is not a valid " + type + " name (" + type + " must be followed by "
                        + (eui ? "16" : "16 or 32") + " hex digits)";
            }
            return null;
        }
        return "\"" + name + "\" is not an iSCSI name (" + FORMS + ")";
    }

    private static String iqnProblem(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == ':')) {
                return "\"" + name + "\" contains '" + c + "'; iSCSI names use only a-z, 0-9, '-', '.' and ':'";
            }
        }
        // iqn.YYYY-MM.
        if (name.length() < 12
                || !digits(name, 4, 8)
                || name.charAt(8) != '-'
                || !digits(name, 9, 11)
                || name.charAt(11) != '.') {
            return "\"" + name + "\" lacks the date: write iqn.YYYY-MM.reversed.domain[:identifier]";
        }
        int month = Integer.parseInt(name.substring(9, 11));
        if (month < 1 || month > 12) {
            return "\"" + name + "\": month " + name.substring(9, 11) + " is not 01..12";
        }
        int colon = name.indexOf(':');
        String authority = colon < 0 ? name.substring(12) : name.substring(12, colon);
        if (authority.isEmpty()) {
            return "\"" + name + "\" lacks the reversed domain name after the date";
        }
        for (String label : authority.split("\\.", -1)) {
            if (label.isEmpty()) {
                return "\"" + name + "\": empty label in the reversed domain name \"" + authority + "\"";
            }
        }
        if (colon >= 0 && colon == name.length() - 1) {
            return "\"" + name + "\" ends with ':'; write an identifier after it or drop the ':'";
        }
        return null;
    }

    private static boolean digits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
