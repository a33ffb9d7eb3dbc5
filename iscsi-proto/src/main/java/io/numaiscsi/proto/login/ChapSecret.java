package io.numaiscsi.proto.login;

import java.util.Arrays;
import java.util.Objects;

/**
 * One side's CHAP identity (RFC 1994, RFC 7143 12.1.3): the name sent as CHAP_N and the shared secret. The secret
 * never leaves this package and never appears in {@link #toString()}.
 */
public final class ChapSecret {
    private final String name;
    private final byte[] secret;

    public ChapSecret(String name, byte[] secret) {
        this.name = Objects.requireNonNull(name, "name");
        Objects.requireNonNull(secret, "secret");
        if (secret.length == 0) {
            throw new IllegalArgumentException("empty CHAP secret for " + name);
        }
        this.secret = secret.clone();
    }

    public String name() {
        return name;
    }

    byte[] secret() {
        return secret;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChapSecret other && name.equals(other.name) && Arrays.equals(secret, other.secret);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return "ChapSecret[name=" + name + ", secret=(hidden)]";
    }
}
