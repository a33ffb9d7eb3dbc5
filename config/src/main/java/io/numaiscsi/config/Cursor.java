package io.numaiscsi.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A located value being validated: its node, key path and line. Conversions throw
 * {@link ConfigException}s that name exactly this place.
 */
final class Cursor {

    private final String source;
    private final String path;
    private final int line;
    private final Node node;

    Cursor(String source, String path, int line, Node node) {
        this.source = source;
        this.path = path;
        this.line = line;
        this.node = node;
    }

    static Cursor root(String source, Node node) {
        return new Cursor(source, "", node.line(), node);
    }

    String source() {
        return source;
    }

    String path() {
        return path;
    }

    int line() {
        return line;
    }

    Node node() {
        return node;
    }

    boolean isNull() {
        return node instanceof Node.Scalar s && s.isNull();
    }

    ConfigException error(String problem) {
        return new ConfigException(source, line, path, problem);
    }

    /** A scalar's text as the YAML parser gives it, also for a null ("null" for {@code null}), else "". */
    String rawText() {
        return node instanceof Node.Scalar s && s.text() != null ? s.text() : "";
    }

    /** The value as text; any scalar is accepted (a number written for a name is still text). */
    String text() throws ConfigException {
        if (node instanceof Node.Scalar s && !s.isNull()) {
            return s.text();
        }
        throw expected("a single value");
    }

    /** A decimal integer in {@code min..max}. */
    int integer(int min, int max) throws ConfigException {
        String t = text();
        if (!t.matches("-?[0-9]{1,18}")) {
            throw error("\"" + t + "\" is not an integer");
        }
        long v = Long.parseLong(t);
        if (v < min || v > max) {
            throw error(v + " is out of range (" + min + ".." + max + ")");
        }
        return (int) v;
    }

    boolean bool() throws ConfigException {
        String t = text();
        String lower = t.toLowerCase(Locale.ROOT);
        if (lower.equals("true")) {
            return true;
        }
        if (lower.equals("false")) {
            return false;
        }
        throw error("\"" + t + "\" is not true or false");
    }

    /** Bytes, or a binary K/M/G/T suffix. */
    long size() throws ConfigException {
        String t = text();
        try {
            return Sizes.parse(t);
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /** A duration such as 500ms, 5s, 2m, 1h or 0, within {@code min..max} (0 always allowed when {@code zeroAllowed}). */
    Duration duration(Duration min, Duration max, boolean zeroAllowed) throws ConfigException {
        String t = text();
        Duration d;
        try {
            d = Durations.parse(t);
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
        if (d.isZero() && zeroAllowed) {
            return d;
        }
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw error(t + " is out of range (" + (zeroAllowed ? "0 or " : "") + Durations.format(min) + ".."
                    + Durations.format(max) + ")");
        }
        return d;
    }

    List<Cursor> list() throws ConfigException {
        if (!(node instanceof Node.Sequence seq)) {
            throw expected("a list");
        }
        List<Cursor> items = new ArrayList<>(seq.items().size());
        for (int i = 0; i < seq.items().size(); i++) {
            Node item = seq.items().get(i);
            items.add(new Cursor(source, path + "[" + i + "]", item.line(), item));
        }
        return items;
    }

    /** A list of single values, each checked by the caller through its own cursor. */
    List<Cursor> nonEmptyList(String whenEmpty) throws ConfigException {
        List<Cursor> items = list();
        if (items.isEmpty()) {
            throw error(whenEmpty);
        }
        return items;
    }

    /** This value as a mapping with exactly these possible keys (a null value reads as empty). */
    Fields fields(List<String> knownKeys) throws ConfigException {
        if (isNull()) {
            return new Fields(this, new Node.Mapping(List.of(), line, 1), knownKeys);
        }
        if (!(node instanceof Node.Mapping m)) {
            throw expected("a mapping (key: value lines)");
        }
        return new Fields(this, m, knownKeys);
    }

    private ConfigException expected(String what) {
        return error("expected " + what + ", found " + node.kind());
    }
}
