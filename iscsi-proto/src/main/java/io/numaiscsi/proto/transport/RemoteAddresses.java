package io.numaiscsi.proto.transport;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Turns a transport's "host:port" text back into an address for access lists. */
public final class RemoteAddresses {
    private RemoteAddresses() {}

    /** The address of "a.b.c.d:port", "[v6]:port" or a bare literal; null for anything else (never a lookup). */
    public static InetAddress parse(String hostPort) {
        if (hostPort == null || hostPort.isEmpty()) {
            return null;
        }
        String host;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                return null;
            }
            host = hostPort.substring(1, close);
        } else {
            int colon = hostPort.lastIndexOf(':');
            host = colon >= 0 && hostPort.indexOf(':') == colon ? hostPort.substring(0, colon) : hostPort;
        }
        boolean v4 = host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
        boolean v6 = host.matches("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(%[A-Za-z0-9_.-]+)?");
        if (!v4 && !v6) {
            return null;
        }
        if (v4) {
            for (String octet : host.split("\\.", -1)) {
                if (Integer.parseInt(octet) > 255) {
                    return null;
                }
            }
        }
        try {
            return InetAddress.getByName(v6 ? "[" + host + "]" : host); // brackets: a literal or an error, no lookup
        } catch (UnknownHostException | SecurityException e) {
            return null;
        }
    }
}
