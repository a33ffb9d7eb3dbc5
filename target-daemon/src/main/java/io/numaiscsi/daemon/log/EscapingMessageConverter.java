package io.numaiscsi.daemon.log;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * {@code %safeMsg}: the log message with every control character escaped. Initiator names, target names, CHAP
 * user names and key values arrive from unauthenticated peers and end up in log lines; escaped here, once for
 * every logger, a newline in them cannot forge a line and an ANSI escape cannot rewrite a terminal.
 */
public final class EscapingMessageConverter extends ClassicConverter {

    @Override
    public String convert(ILoggingEvent event) {
        return escape(event.getFormattedMessage());
    }

    /** {@code text} with C0 and C1 control characters, DEL and the Unicode line separators escaped. */
    public static String escape(String text) {
        if (text == null) {
            return "null";
        }
        int first = firstUnsafe(text);
        if (first < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!unsafe(c)) {
                out.append(c);
                continue;
            }
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    out.append(c <= 0xff ? "\\x" : "\\u");
                    String hex = Integer.toHexString(c);
                    int width = c <= 0xff ? 2 : 4;
                    for (int pad = hex.length(); pad < width; pad++) {
                        out.append('0');
                    }
                    out.append(hex);
                }
            }
        }
        return out.toString();
    }

    private static int firstUnsafe(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (unsafe(text.charAt(i))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean unsafe(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }
}
