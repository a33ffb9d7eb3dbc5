package io.numaiscsi.config;

import java.nio.charset.StandardCharsets;

/**
 * How a CHAP secret is written in a config text: as it is in a gateway's own file (readable by root only), or
 * encrypted in the configuration a gateway group keeps in the cluster, which the cluster's other users may read.
 */
public interface SecretCodec {
    /** The text written for {@code secret}. */
    String encode(byte[] secret);

    /** The secret {@code text} stands for; the problem (without the secret) when it is not one. */
    byte[] decode(String text) throws IllegalArgumentException;

    /** Secrets written as they are. */
    SecretCodec PLAIN = new SecretCodec() {
        @Override
        public String encode(byte[] secret) {
            return new String(secret, StandardCharsets.UTF_8);
        }

        @Override
        public byte[] decode(String text) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
    };
}
