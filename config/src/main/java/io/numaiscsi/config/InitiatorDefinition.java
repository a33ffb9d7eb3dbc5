package io.numaiscsi.config;

import java.util.Objects;

/**
 * One entry of {@code initiators:}: CHAP credentials of one initiator name, used for its normal sessions to any
 * target in place of the target's own {@code chap:}.
 *
 * @param name iSCSI name of the initiator
 * @param chap its credentials
 */
public record InitiatorDefinition(String name, ChapCredentials chap) {

    public InitiatorDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(chap, "chap");
    }
}
