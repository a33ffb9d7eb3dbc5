package io.numaiscsi.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code chap:} mapping ({@code discovery-chap:}, a target's or an initiator's). Messages about a secret name its
 * key and line, never its value.
 */
final class ChapSection {

    static final List<String> KEYS = List.of("username", "secret", "mutual-username", "mutual-secret");
    static final int MAX_NAME_BYTES = 255;

    /**
     * Every secret read so far, by direction: RFC 7143 12.1.3 forbids a secret that authenticates initiators to
     * also authenticate a target, and the other way round.
     */
    static final class Secrets {
        private final List<Located> initiatorSecrets = new ArrayList<>();
        private final List<Located> targetSecrets = new ArrayList<>();
        /** How the secrets of the text being read are written. */
        final SecretCodec codec;

        Secrets() {
            this(SecretCodec.PLAIN);
        }

        Secrets(SecretCodec codec) {
            this.codec = codec;
        }

        /** The secrets a running config already uses, except {@code exceptTarget}'s (null: none excepted). */
        static Secrets of(TargetConfig config, String exceptTarget) {
            Secrets s = new Secrets();
            s.seed(config.discoveryChap(), "discovery-chap");
            for (InitiatorDefinition i : config.initiators()) {
                s.seed(i.chap(), "initiator " + i.name() + "'s chap");
            }
            for (TargetDefinition t : config.targets()) {
                if (!t.name().equals(exceptTarget)) {
                    s.seed(t.chap(), "target " + t.name() + "'s chap");
                }
            }
            return s;
        }

        private void seed(ChapCredentials c, String where) {
            if (c == null) {
                return;
            }
            initiatorSecrets.add(new Located(c.secret(), where + ".secret"));
            if (c.mutual()) {
                targetSecrets.add(new Located(c.mutualSecret(), where + ".mutual-secret"));
            }
        }
    }

    /** A secret and where it was written ("targets[0].chap.secret at line 12"). */
    private record Located(byte[] secret, String where) {
        Located(byte[] secret, Cursor at) {
            this(secret, at.path() + " at line " + at.line());
        }
    }

    private ChapSection() {}

    /** The credentials under {@code key}, or null when absent. */
    static ChapCredentials read(Fields parent, String key, Secrets seen) throws ConfigException {
        Cursor c = parent.optional(key);
        return c == null ? null : readOne(c, seen);
    }

    /** The credentials of a {@code chap:} mapping written on its own. */
    static ChapCredentials readOne(Cursor c, Secrets seen) throws ConfigException {
        Fields f = c.fields(KEYS);
        String username = name(f, "username", true);
        Cursor secretAt = f.required("secret");
        byte[] secret = secret(secretAt, seen.codec);
        String mutualUsername = name(f, "mutual-username", false);
        Cursor mutualAt = f.optional("mutual-secret");
        byte[] mutualSecret = mutualAt == null ? null : secret(mutualAt, seen.codec);
        if (mutualUsername != null && mutualSecret == null) {
            throw f.missing("mutual-secret", "is required with mutual-username");
        }
        if (mutualUsername == null && mutualSecret != null) {
            throw f.missing("mutual-username", "is required with mutual-secret");
        }
        if (mutualSecret != null && MessageDigest.isEqual(secret, mutualSecret)) {
            throw mutualAt.error(
                    "must differ from secret: one secret may not authenticate both directions " + "(RFC 7143 12.1.3)");
        }
        checkDirection(secretAt, secret, seen.targetSecrets, "a mutual-secret");
        seen.initiatorSecrets.add(new Located(secret, secretAt));
        if (mutualSecret != null) {
            checkDirection(mutualAt, mutualSecret, seen.initiatorSecrets, "a secret");
            seen.targetSecrets.add(new Located(mutualSecret, mutualAt));
        }
        return new ChapCredentials(username, secret, mutualUsername, mutualSecret);
    }

    private static void checkDirection(Cursor at, byte[] secret, List<Located> other, String otherKind)
            throws ConfigException {
        for (Located l : other) {
            if (MessageDigest.isEqual(l.secret(), secret)) {
                throw at.error("is also used as " + otherKind + " (" + l.where()
                        + "); a secret may authenticate initiators or targets, not both (RFC 7143 12.1.3)");
            }
        }
    }

    private static String name(Fields f, String key, boolean required) throws ConfigException {
        Cursor c = required ? f.required(key) : f.optional(key);
        if (c == null) {
            return null;
        }
        String name = c.text();
        if (name.isEmpty()) {
            throw c.error("is empty");
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            throw c.error("is longer than " + MAX_NAME_BYTES + " bytes");
        }
        if (name.chars().anyMatch(Character::isISOControl)) {
            throw c.error("contains a control character");
        }
        return name;
    }

    /** The secret's UTF-8 bytes; the problems never quote the secret. */
    private static byte[] secret(Cursor c, SecretCodec codec) throws ConfigException {
        byte[] bytes;
        try {
            bytes = codec.decode(c.text());
        } catch (IllegalArgumentException e) {
            throw c.error(e.getMessage());
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (bytes.length < ChapCredentials.MIN_SECRET_BYTES) {
            throw c.error("is " + bytes.length + " bytes; a CHAP secret needs at least "
                    + ChapCredentials.MIN_SECRET_BYTES + " (RFC 7143 12.1.3; 16 or more recommended)");
        }
        if (bytes.length > ChapCredentials.MAX_SECRET_BYTES) {
            throw c.error(
                    "is " + bytes.length + " bytes; at most " + ChapCredentials.MAX_SECRET_BYTES + " are allowed");
        }
        if (text.chars().anyMatch(Character::isISOControl)) {
            throw c.error("contains a control character");
        }
        return bytes;
    }
}
