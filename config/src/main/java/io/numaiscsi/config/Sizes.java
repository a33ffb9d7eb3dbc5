package io.numaiscsi.config;

/** Byte sizes written as a number of bytes or with a binary K/M/G/T suffix ({@code 1G} = 2^30). */
final class Sizes {

    private Sizes() {}

    /** @throws IllegalArgumentException with the administrator-facing problem */
    static long parse(String text) {
        String t = text.trim();
        int shift = 0;
        String digits = t;
        if (!t.isEmpty()) {
            switch (Character.toUpperCase(t.charAt(t.length() - 1))) {
                case 'K' -> shift = 10;
                case 'M' -> shift = 20;
                case 'G' -> shift = 30;
                case 'T' -> shift = 40;
                default -> shift = 0;
            }
            if (shift != 0) {
                digits = t.substring(0, t.length() - 1);
            }
        }
        if (digits.isEmpty() || digits.length() > 19 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("\"" + text + "\" is not a size (use bytes or a K/M/G/T suffix)");
        }
        long n;
        try {
            n = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("\"" + text + "\" is too large");
        }
        if (n == 0) {
            throw new IllegalArgumentException("size must be greater than 0");
        }
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("\"" + text + "\" is too large");
        }
        return n << shift;
    }

    /** {@code bytes} as an administrator writes it: with the largest suffix that divides it exactly, else in bytes. */
    static String format(long bytes) {
        String[] suffixes = {"T", "G", "M", "K"};
        int[] shifts = {40, 30, 20, 10};
        for (int i = 0; i < suffixes.length; i++) {
            if (bytes != 0 && bytes % (1L << shifts[i]) == 0) {
                return (bytes >> shifts[i]) + suffixes[i];
            }
        }
        return Long.toString(bytes);
    }
}
