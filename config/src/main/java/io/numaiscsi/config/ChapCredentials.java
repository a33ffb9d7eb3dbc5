package io.numaiscsi.config;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Objects;

/**
 * CHAP credentials of one target, initiator or the discovery service (RFC 7143 12.1.3): the user name and secret
 * the initiator must prove, and optionally the name and secret the target answers mutual CHAP with. Secrets are
 * UTF-8 text as written in the file; they never appear in {@link #toString()} or in a validation message.
 */
public final class ChapCredentials {
    /** RFC 7143 12.1.3 asks for secrets of at least 96 bits (16 bytes recommended if they are typed in). */
    public static final int MIN_SECRET_BYTES = 12;
    /** Initiators keep secrets in 255-256 byte buffers (libiscsi, open-iscsi). */
    public static final int MAX_SECRET_BYTES = 255;

    private final String username;
    private final byte[] secret;
    private final String mutualUsername;
    private final byte[] mutualSecret;

    /** {@code mutualUsername} and {@code mutualSecret} are both null (no mutual CHAP) or both set. */
    public ChapCredentials(String username, byte[] secret, String mutualUsername, byte[] mutualSecret) {
        this.username = Objects.requireNonNull(username, "username");
        this.secret = Objects.requireNonNull(secret, "secret").clone();
        if ((mutualUsername == null) != (mutualSecret == null)) {
            throw new IllegalArgumentException("mutual CHAP needs both a user name and a secret");
        }
        this.mutualUsername = mutualUsername;
        this.mutualSecret = mutualSecret == null ? null : mutualSecret.clone();
    }

    /** The CHAP_N the initiator must send. */
    public String username() {
        return username;
    }

    /** A copy of the secret the initiator proves. */
    public byte[] secret() {
        return secret.clone();
    }

    public boolean mutual() {
        return mutualUsername != null;
    }

    /** The CHAP_N the target answers mutual CHAP with, or null. */
    public String mutualUsername() {
        return mutualUsername;
    }

    /** A copy of the target's secret for mutual CHAP, or null. */
    public byte[] mutualSecret() {
        return mutualSecret == null ? null : mutualSecret.clone();
    }

    /** Same names and secrets (a reload compares the credentials it runs with to those in the file). */
    @Override
    public boolean equals(Object o) {
        return o instanceof ChapCredentials c
                && username.equals(c.username)
                && MessageDigest.isEqual(secret, c.secret)
                && Objects.equals(mutualUsername, c.mutualUsername)
                && Arrays.equals(mutualSecret, c.mutualSecret);
    }

    @Override
    public int hashCode() {
        return username.hashCode();
    }

    @Override
    public String toString() {
        return "chap{username=" + username + ", secret=(hidden)"
                + (mutual() ? ", mutual-username=" + mutualUsername + ", mutual-secret=(hidden)" : "") + "}";
    }
}
