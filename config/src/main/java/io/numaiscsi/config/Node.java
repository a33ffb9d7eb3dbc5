package io.numaiscsi.config;

import com.fasterxml.jackson.core.JsonToken;
import java.util.List;

/** A YAML node that remembers where it was written (1-based line and column). */
sealed interface Node permits Node.Scalar, Node.Mapping, Node.Sequence {

    int line();

    int column();

    /** What an administrator would call it, for "expected X, found Y" messages. */
    String kind();

    /** A scalar: its text as written (unquoted) and how the YAML parser typed it. */
    record Scalar(String text, JsonToken token, int line, int column) implements Node {
        boolean isNull() {
            return token == JsonToken.VALUE_NULL;
        }

        @Override
        public String kind() {
            return isNull() ? "no value" : "a single value";
        }
    }

    /** One {@code key: value} pair; the key's own position is kept for key-level errors. */
    record Entry(String key, int line, int column, Node value) {}

    record Mapping(List<Entry> entries, int line, int column) implements Node {
        Entry entry(String key) {
            for (Entry e : entries) {
                if (e.key().equals(key)) {
                    return e;
                }
            }
            return null;
        }

        @Override
        public String kind() {
            return "a mapping (key: value lines)";
        }
    }

    record Sequence(List<Node> items, int line, int column) implements Node {
        @Override
        public String kind() {
            return "a list";
        }
    }
}
