package io.numaiscsi.config;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * YAML text in block style, written line by line: mappings and lists nested two spaces a level, a list of mappings
 * with {@code - } before each item's first key. Values are YAML already ({@link #scalar} makes one of a string).
 */
final class YamlText {

    private static final String INDENT = "  ";
    /**
     * Text a YAML parser gives back unchanged when written plain: no indicator first, no {@code ": "} or {@code " #"},
     * no flow punctuation, single spaces inside. Anything else is double-quoted.
     */
    private static final Pattern PLAIN =
            Pattern.compile("[A-Za-z0-9_./][A-Za-z0-9_./:@+%=-]*( [A-Za-z0-9_./:@+%=-]+)*");
    /** Plain scalars that read as null, which the loader takes for "not written". */
    private static final Set<String> NULLS = Set.of("null", "Null", "NULL");

    private final StringBuilder text = new StringBuilder();
    private int depth;
    private boolean itemStarts;

    /** A comment line at the current depth. */
    YamlText comment(String line) {
        return line("# " + line);
    }

    /** {@code key: value}. */
    YamlText entry(String key, String yamlValue) {
        return line(key + ": " + yamlValue);
    }

    /** {@code key:} opening a nested mapping or list; {@link #close()} ends it. */
    YamlText open(String key) {
        line(key + ":");
        depth++;
        return this;
    }

    /** A mapping item of the list opened last: its first line starts with {@code - }; {@link #close()} ends it. */
    YamlText item() {
        depth++;
        itemStarts = true;
        return this;
    }

    /** A single-value item of the list opened last. */
    YamlText listValue(String yamlValue) {
        return line("- " + yamlValue);
    }

    YamlText close() {
        depth--;
        return this;
    }

    /** Every entry of {@code entries} under {@code key}; nothing at all when there is none. */
    YamlText section(String key, Map<String, String> entries) {
        if (entries.isEmpty()) {
            return this;
        }
        open(key);
        entries.forEach(this::entry);
        return close();
    }

    private YamlText line(String content) {
        if (itemStarts) {
            text.append(INDENT.repeat(depth - 1)).append("- ");
            itemStarts = false;
        } else {
            text.append(INDENT.repeat(depth));
        }
        text.append(content).append('\n');
        return this;
    }

    @Override
    public String toString() {
        return text.toString();
    }

    /** {@code s} plain when that reads back as the same text, else double-quoted. */
    static String scalar(String s) {
        boolean plain = PLAIN.matcher(s).matches() && !s.contains(": ") && !s.endsWith(":") && !NULLS.contains(s);
        return plain ? s : quoted(s);
    }

    /** {@code [a, b]}. */
    static String flowList(List<String> items) {
        return "[" + String.join(", ", items.stream().map(YamlText::scalar).toList()) + "]";
    }

    /** Double-quoted, escaping what YAML would otherwise take as syntax, a line break or a byte order mark. */
    static String quoted(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20
                    || (c >= 0x7f && c <= 0x9f)
                    || c == '\u2028'
                    || c == '\u2029'
                    || c == '\ufeff'
                    || c >= '\ufffe') {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
