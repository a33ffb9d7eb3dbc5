package io.numaiscsi.config;

import java.net.InetAddress;
import java.util.List;
import java.util.Locale;

/**
 * Who may log in to a target: initiator names and source networks, an empty list meaning anyone. The one
 * implementation of the access check, used by the configuration model and by login alike.
 */
public record AccessList(List<String> initiators, List<NetworkRange> networks) {

    public static final AccessList ANYONE = new AccessList(List.of(), List.of());

    public AccessList {
        initiators = List.copyOf(initiators);
        networks = List.copyOf(networks);
    }

    /**
     * The form iSCSI names are compared in (RFC 3722 stringprep as RFC 7143 requires; for the ASCII names iSCSI
     * uses in practice, lower case): session keys, access lists and CHAP accounts all use it.
     */
    public static String normalizedName(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    /** Whether this initiator name may log in; a missing or empty name never may. */
    public boolean allows(String initiatorName) {
        if (initiatorName == null || initiatorName.isEmpty()) {
            return false;
        }
        if (initiators.isEmpty()) {
            return true;
        }
        String key = normalizedName(initiatorName);
        for (String allowed : initiators) {
            if (normalizedName(allowed).equals(key)) {
                return true;
            }
        }
        return false;
    }

    /** Whether an initiator at this source address may log in; an unknown address (null) only when any network may. */
    public boolean allowsAddress(InetAddress address) {
        if (networks.isEmpty()) {
            return true;
        }
        for (NetworkRange n : networks) {
            if (n.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
