package io.numaiscsi.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A target's {@code alua:} mapping:
 * <pre>
 * alua:
 *   group: 1                      # this gateway's target port group
 *   state: active-optimized       # its access state
 *   port: 1                       # this gateway's relative target port id and TPGT (default: the group id)
 *   peers:                        # the other gateways' groups
 *     - {group: 2, state: active-non-optimized, ports: [2]}   # ports default to [group]
 * </pre>
 * Group ids and port ids must be unique across this gateway and its peers.
 */
final class AluaSection {
    static final String KEY = "alua";
    private static final List<String> KEYS = List.of("group", "state", "port", "peers");
    private static final List<String> PEER_KEYS = List.of("group", "state", "ports");
    private static final int MAX_ID = 0xFFFF;

    private AluaSection() {}

    /** The target's ALUA, or null when it has no {@code alua:} key (a single target port, no ALUA). */
    static AluaDefinition read(Fields target) throws ConfigException {
        Cursor at = target.optional(KEY);
        if (at == null) {
            return null;
        }
        Fields f = at.fields(KEYS);
        Cursor groupAt = f.required("group");
        int group = groupAt.integer(1, MAX_ID);
        String state = state(f.required("state"));
        Cursor portAt = f.optional("port");
        int port = portAt == null ? group : portAt.integer(1, MAX_ID);
        Map<Integer, Cursor> groups = new HashMap<>();
        Map<Integer, Cursor> ports = new HashMap<>();
        groups.put(group, groupAt);
        ports.put(port, portAt != null ? portAt : groupAt);
        List<AluaDefinition.Peer> peers = new ArrayList<>();
        Cursor peersAt = f.optional("peers");
        if (peersAt != null) {
            for (Cursor item : peersAt.list()) {
                Fields p = item.fields(PEER_KEYS);
                Cursor peerGroupAt = p.required("group");
                int peerGroup = peerGroupAt.integer(1, MAX_ID);
                unique(groups, peerGroup, peerGroupAt, "target port group");
                String peerState = state(p.required("state"));
                List<Integer> peerPorts = new ArrayList<>();
                Cursor portsAt = p.optional("ports");
                if (portsAt == null) {
                    unique(ports, peerGroup, peerGroupAt, "relative target port (a peer's ports default to [group])");
                    peerPorts.add(peerGroup);
                } else {
                    for (Cursor portItem :
                            portsAt.nonEmptyList("must list at least one port (leave the key out for " + "[group])")) {
                        int peerPort = portItem.integer(1, MAX_ID);
                        unique(ports, peerPort, portItem, "relative target port");
                        peerPorts.add(peerPort);
                    }
                }
                peers.add(new AluaDefinition.Peer(peerGroup, peerState, peerPorts));
            }
        }
        return new AluaDefinition(port, group, state, peers);
    }

    private static String state(Cursor at) throws ConfigException {
        String s = at.text();
        if (!AluaDefinition.STATES.contains(s)) {
            throw at.error("unknown ALUA state \"" + s + "\" (" + String.join(", ", AluaDefinition.STATES) + ")");
        }
        return s;
    }

    private static void unique(Map<Integer, Cursor> seen, int id, Cursor at, String what) throws ConfigException {
        Cursor previous = seen.putIfAbsent(id, at);
        if (previous != null) {
            throw at.error(
                    what + " " + id + " is used twice (also " + previous.path() + " at line " + previous.line() + ")");
        }
    }

    /** Writes {@code alua} back in the form {@link #read} takes. */
    static void write(AluaDefinition alua, YamlText y) {
        if (alua == null) {
            return;
        }
        y.open(KEY)
                .entry("group", String.valueOf(alua.group()))
                .entry("state", alua.state())
                .entry("port", String.valueOf(alua.port()));
        if (!alua.peers().isEmpty()) {
            y.open("peers");
            for (AluaDefinition.Peer p : alua.peers()) {
                y.item()
                        .entry("group", String.valueOf(p.group()))
                        .entry("state", p.state())
                        .entry("ports", p.ports().toString())
                        .close();
            }
            y.close();
        }
        y.close();
    }
}
