package io.numaiscsi.config;

import java.util.List;

/**
 * The keys of one YAML mapping, checked against the keys its section knows: an unknown key is
 * rejected (with a "did you mean") as soon as the view is made. A key written with no value
 * counts as absent, so the default applies.
 */
final class Fields {

    private final Cursor at;
    private final Node.Mapping mapping;

    Fields(Cursor at, Node.Mapping mapping, List<String> knownKeys) throws ConfigException {
        this.at = at;
        this.mapping = mapping;
        for (Node.Entry e : mapping.entries()) {
            if (!knownKeys.contains(e.key())) {
                String hint = KeySuggester.suggest(e.key(), knownKeys);
                String problem = hint != null
                        ? "unknown key (did you mean \"" + hint + "\"?)"
                        : "unknown key (known keys here: " + String.join(", ", knownKeys) + ")";
                throw new ConfigException(at.source(), e.line(), childPath(e.key()), problem);
            }
        }
    }

    /** The mapping's own place, for problems that involve several keys. */
    Cursor cursor() {
        return at;
    }

    String childPath(String key) {
        return at.path().isEmpty() ? key : at.path() + "." + key;
    }

    /** The value of {@code key}, or null when absent or written without a value. */
    Cursor optional(String key) {
        Node.Entry e = mapping.entry(key);
        if (e == null) {
            return null;
        }
        Cursor c = new Cursor(at.source(), childPath(key), e.line(), e.value());
        return c.isNull() ? null : c;
    }

    /** The value of {@code key} even when YAML reads it as null ({@code null}, {@code ~}, nothing), or null if absent. */
    Cursor present(String key) {
        Node.Entry e = mapping.entry(key);
        return e == null ? null : new Cursor(at.source(), childPath(key), e.line(), e.value());
    }

    Cursor required(String key) throws ConfigException {
        Cursor c = optional(key);
        if (c == null) {
            throw missing(key, "is required");
        }
        return c;
    }

    /** An error about a missing key, placed on the key if written empty, else on this mapping. */
    ConfigException missing(String key, String problem) {
        Node.Entry e = mapping.entry(key);
        int line = e != null ? e.line() : at.line();
        return new ConfigException(at.source(), line, childPath(key), problem);
    }

    /** A nested section; absent or empty reads as an empty mapping so all its defaults apply. */
    Fields section(String key, List<String> knownKeys) throws ConfigException {
        Cursor c = optional(key);
        if (c == null) {
            Node.Entry e = mapping.entry(key);
            int line = e != null ? e.line() : at.line();
            Cursor empty = new Cursor(at.source(), childPath(key), line, new Node.Mapping(List.of(), line, 1));
            return empty.fields(knownKeys);
        }
        return c.fields(knownKeys);
    }

    int integer(String key, int min, int max, int dflt) throws ConfigException {
        Cursor c = optional(key);
        return c == null ? dflt : c.integer(min, max);
    }

    boolean bool(String key, boolean dflt) throws ConfigException {
        Cursor c = optional(key);
        return c == null ? dflt : c.bool();
    }

    /** Text, or null when absent or empty. */
    String text(String key) throws ConfigException {
        Cursor c = optional(key);
        if (c == null) {
            return null;
        }
        String t = c.text();
        return t.isEmpty() ? null : t;
    }
}
