package io.numaiscsi.daemon.group;

import io.numaiscsi.config.GroupSecretCodec;
import io.numaiscsi.config.GroupSettings;
import io.numaiscsi.config.SecretCodec;
import java.io.IOException;

/** How a member reads and writes the CHAP secrets of its group's configuration. */
final class SecretCodecs {
    private SecretCodecs() {}

    /** With the group's key file, sealed; without one, none at all (a group with secrets is then refused). */
    static SecretCodec of(GroupSettings settings) throws IOException {
        if (settings.secretKeyFile() != null) {
            return GroupSecretCodec.load(settings.secretKeyFile());
        }
        return new SecretCodec() {
            @Override
            public String encode(byte[] secret) {
                throw new IllegalArgumentException(NO_KEY);
            }

            @Override
            public byte[] decode(String text) {
                throw new IllegalArgumentException(NO_KEY);
            }
        };
    }

    private static final String NO_KEY = "cannot be read or written by this gateway: the group keeps CHAP secrets "
            + "encrypted, and its group: settings name no secret-key-file (the same key file on every member; make one"
            + " with: head -c 32 /dev/urandom | base64 > FILE)";
}
