package io.numaiscsi.session;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * Connections still in login, bounded daemon-wide and per source address, so that connections from one
 * host that never finish logging in cannot lock out the logins of others (limits.max-logins,
 * limits.logins-per-address). A connection enters when it opens and leaves when its login ends, whichever
 * way. Touched once per connection at open and once at login end: a plain lock.
 */
public final class LoginAdmission {
    private final int maxTotal;
    private final int maxPerAddress;
    private final Map<InetAddress, Integer> byAddress = new HashMap<>();
    private int total;

    public LoginAdmission(int maxTotal, int maxPerAddress) {
        if (maxTotal < 1 || maxPerAddress < 1) {
            throw new IllegalArgumentException("login limits must be positive");
        }
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
    }

    /** Takes a login slot for a connection from {@code from} (null: unknown address); null if admitted, else why not. */
    public synchronized String enter(InetAddress from) {
        int mine = byAddress.getOrDefault(from, 0);
        if (mine >= maxPerAddress) {
            return mine + " connections from " + (from == null ? "an unknown address" : from.getHostAddress())
                    + " already in login (limits.logins-per-address " + maxPerAddress + ")";
        }
        if (total >= maxTotal) {
            return total + " connections already in login (limits.max-logins " + maxTotal + ")";
        }
        byAddress.put(from, mine + 1);
        total++;
        return null;
    }

    /** Gives back the slot {@link #enter} took for this address. */
    public synchronized void leave(InetAddress from) {
        Integer mine = byAddress.get(from);
        if (mine == null) {
            throw new IllegalStateException("no login slot held for " + from);
        }
        if (mine == 1) {
            byAddress.remove(from);
        } else {
            byAddress.put(from, mine - 1);
        }
        total--;
    }

    public synchronized int inLogin() {
        return total;
    }

    public synchronized int inLogin(InetAddress from) {
        return byAddress.getOrDefault(from, 0);
    }
}
