package io.numaiscsi.proto.login;

import java.util.Objects;

/** One "key=value" pair of a text data segment (RFC 7143 6.1). */
public record KeyValue(String key, String value) {
    public KeyValue {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
    }

    @Override
    public String toString() {
        return key + "=" + value;
    }
}
