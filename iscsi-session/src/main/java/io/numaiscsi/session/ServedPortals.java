package io.numaiscsi.session;

import java.util.List;

/**
 * The portal addresses SendTargets reports: a snapshot that the control path replaces whole when a portal is added or
 * removed, so a discovery session reads the portals as they are at that moment.
 */
public final class ServedPortals {
    private volatile List<String> addresses;

    public ServedPortals(List<String> addresses) {
        this.addresses = List.copyOf(addresses);
    }

    public List<String> addresses() {
        return addresses;
    }

    public void replace(List<String> now) {
        addresses = List.copyOf(now);
    }
}
