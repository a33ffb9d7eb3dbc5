package io.numaiscsi.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * A listen address (RFC 7143 network portal).
 *
 * @param host IPv4 literal, IPv6 literal without brackets, or host name
 * @param port TCP port (for iSER: the RDMA CM port), 1..65535
 * @param transport iSCSI over TCP, or iSER (RFC 7145) over RDMA
 * @param connections iSER: connections whose buffers are registered at start (the most served at once)
 */
public record Portal(String host, int port, Transport transport, int connections) {

    /** The IANA-registered iSCSI target port, used when a portal names none. */
    public static final int DEFAULT_PORT = 3260;
    /** iSER connections per portal unless configured: about 6.5 MiB of registered memory each. */
    public static final int DEFAULT_ISER_CONNECTIONS = 16;

    public static final int MAX_ISER_CONNECTIONS = 1024;

    /** How initiators reach the portal. */
    public enum Transport {
        TCP,
        ISER
    }

    /** A TCP portal. */
    public Portal(String host, int port) {
        this(host, port, Transport.TCP);
    }

    public Portal(String host, int port, Transport transport) {
        this(host, port, transport, DEFAULT_ISER_CONNECTIONS);
    }

    public Portal {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(transport, "transport");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("portal host is empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("portal port " + port + " is out of range (1..65535)");
        }
        if (connections < 1 || connections > MAX_ISER_CONNECTIONS) {
            throw new IllegalArgumentException(
                    "connections " + connections + " is out of range (1.." + MAX_ISER_CONNECTIONS + ")");
        }
    }

    /**
     * Parses {@code host:port}, {@code [v6]:port}, or a host alone (port 3260).
     *
     * @throws IllegalArgumentException with a message fit for an administrator
     */
    public static Portal parse(String hostPort) {
        String s = hostPort == null ? "" : hostPort.trim();
        if (s.isEmpty()) {
            throw new IllegalArgumentException("portal is empty (use host:port, e.g. 127.0.0.1:3260)");
        }
        String host;
        String portText;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("portal \"" + s + "\" lacks the closing ']' of its IPv6 address");
            }
            host = s.substring(1, close);
            String rest = s.substring(close + 1);
            if (rest.isEmpty()) {
                portText = null;
            } else if (rest.startsWith(":")) {
                portText = rest.substring(1);
            } else {
                throw new IllegalArgumentException("portal \"" + s + "\": expected ':port' after ']'");
            }
            if (!isIpv6Literal(host)) {
                throw new IllegalArgumentException("portal \"" + s + "\": \"" + host + "\" is not an IPv6 address");
            }
        } else {
            int colon = s.indexOf(':');
            if (colon != s.lastIndexOf(':')) {
                throw new IllegalArgumentException(
                        "portal \"" + s + "\": write IPv6 addresses in brackets, e.g. [::1]:3260");
            }
            host = colon < 0 ? s : s.substring(0, colon);
            portText = colon < 0 ? null : s.substring(colon + 1);
            String problem = hostProblem(host);
            if (problem != null) {
                throw new IllegalArgumentException("portal \"" + s + "\": " + problem);
            }
        }
        return new Portal(host, portText == null ? DEFAULT_PORT : port(s, portText));
    }

    private static int port(String portal, String text) {
        if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("portal \"" + portal + "\": \"" + text + "\" is not a port (1..65535)");
        }
        int port = Integer.parseInt(text);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(
                    "portal \"" + portal + "\": port " + port + " is out of range (1..65535)");
        }
        return port;
    }

    private static boolean isIpv6Literal(String host) {
        int zone = host.indexOf('%');
        String addr = zone < 0 ? host : host.substring(0, zone);
        if (addr.indexOf(':') < 0 || !addr.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.')) {
            return false;
        }
        try {
            // A literal containing ':' is parsed, never looked up.
            InetAddress.getByName(addr);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String hostProblem(String host) {
        if (host.isEmpty()) {
            return "host is missing (use host:port, e.g. 127.0.0.1:3260)";
        }
        if (host.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.')) {
            String[] octets = host.split("\\.", -1);
            if (octets.length != 4) {
                return "\"" + host + "\" is not an IPv4 address";
            }
            for (String o : octets) {
                if (o.isEmpty() || o.length() > 3 || Integer.parseInt(o) > 255) {
                    return "\"" + host + "\" is not an IPv4 address";
                }
            }
            return null;
        }
        if (host.length() > 253) {
            return "host name is longer than 253 characters";
        }
        for (String label : host.split("\\.", -1)) {
            if (label.isEmpty()
                    || label.length() > 63
                    || label.startsWith("-")
                    || label.endsWith("-")
                    || !label.chars()
                            .allMatch(c -> (c >= 'a' && c <= 'z')
                                    || (c >= 'A' && c <= 'Z')
                                    || (c >= '0' && c <= '9')
                                    || c == '-')) {
                return "\"" + host + "\" is not a host name or IP address";
            }
        }
        return null;
    }

    /** The same address with another transport. */
    public Portal withTransport(Transport t) {
        return new Portal(host, port, t, connections);
    }

    /** The same portal serving at most {@code n} iSER connections. */
    public Portal withConnections(int n) {
        return new Portal(host, port, transport, n);
    }

    /** {@code host:port}, or {@code [v6]:port} for IPv6 addresses (what SendTargets reports; no transport). */
    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
