package io.numaiscsi.config;

import java.util.List;
import java.util.Objects;

/**
 * Implicit ALUA for a target exported by several gateways: this gateway's target port (its relative target port
 * identifier, which is also its iSCSI target portal group tag), the target port group it is in with that group's
 * access state, and the other gateways' groups. States are the names {@link #STATES} lists.
 *
 * @param port  this gateway's relative target port identifier and TPGT, 1..65535
 * @param group this gateway's target port group, 1..65535
 * @param state access state of {@code group}
 * @param peers the other gateways' groups
 */
public record AluaDefinition(int port, int group, String state, List<Peer> peers) {
    /** The access states a group may be configured in (SPC-4 5.15.2.4). */
    public static final List<String> STATES =
            List.of("active-optimized", "active-non-optimized", "standby", "unavailable");

    /** Another gateway's target port group: its id, state and the relative target port identifiers in it. */
    public record Peer(int group, String state, List<Integer> ports) {
        public Peer {
            Objects.requireNonNull(state, "state");
            ports = List.copyOf(ports);
        }
    }

    public AluaDefinition {
        Objects.requireNonNull(state, "state");
        peers = List.copyOf(peers);
    }
}
