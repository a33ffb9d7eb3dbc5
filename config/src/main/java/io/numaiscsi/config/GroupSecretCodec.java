package io.numaiscsi.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * CHAP secrets in a gateway group's object, encrypted with AES-256-GCM under a key every member keeps in a file of its
 * own (root-readable): the cluster's other users, who may read the object, see {@code enc1:} and base64 of a random
 * 96-bit nonce, the ciphertext and its tag. A text without the prefix is refused, so a secret is never taken as
 * written in clear.
 */
public final class GroupSecretCodec implements SecretCodec {
    static final String PREFIX = "enc1:";
    private static final int KEY_BYTES = 32;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    private GroupSecretCodec(byte[] key) {
        this.key = new SecretKeySpec(key, "AES");
    }

    /**
     * The key in {@code file}: 32 bytes, base64 (make one with {@code head -c 32 /dev/urandom | base64 > FILE}).
     *
     * @throws IOException naming the file and what is wrong with it
     */
    public static GroupSecretCodec load(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
        byte[] key;
        try {
            key = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IOException("the group's secret key file " + file + " is not base64 (make one with: head -c 32"
                    + " /dev/urandom | base64 > " + file + ")");
        }
        if (key.length != KEY_BYTES) {
            throw new IOException("the group's secret key file " + file + " holds " + key.length + " bytes, not "
                    + KEY_BYTES + " (make one with: head -c 32 /dev/urandom | base64 > " + file + ")");
        }
        return new GroupSecretCodec(key);
    }

    /** A codec over {@code key} (32 bytes), for tests. */
    static GroupSecretCodec of(byte[] key) {
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException("a group key is " + KEY_BYTES + " bytes");
        }
        return new GroupSecretCodec(key.clone());
    }

    @Override
    public String encode(byte[] secret) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            byte[] sealed = c.doFinal(secret);
            byte[] out = new byte[NONCE_BYTES + sealed.length];
            System.arraycopy(nonce, 0, out, 0, NONCE_BYTES);
            System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
            return PREFIX + Base64.getEncoder().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is required of every Java platform", e);
        }
    }

    @Override
    public byte[] decode(String text) {
        if (!text.startsWith(PREFIX)) {
            throw new IllegalArgumentException("is not an encrypted secret (a gateway group keeps CHAP secrets "
                    + "encrypted; set them with numa-iscsi-admin)");
        }
        byte[] in;
        try {
            in = Base64.getDecoder().decode(text.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("is not an encrypted secret (not base64)");
        }
        if (in.length <= NONCE_BYTES) {
            throw new IllegalArgumentException("is not an encrypted secret (too short)");
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, in, 0, NONCE_BYTES));
            return c.doFinal(in, NONCE_BYTES, in.length - NONCE_BYTES);
        } catch (AEADBadTagException e) {
            throw new IllegalArgumentException("cannot be decrypted with this gateway's group key (is "
                    + "secret-key-file the same file on every member?)");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is required of every Java platform", e);
        }
    }
}
