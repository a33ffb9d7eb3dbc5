package io.numaiscsi.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Objects;

/**
 * An IPv4 or IPv6 network in CIDR notation ({@code 10.0.0.0/8}, {@code fd00::/8}); a bare address is a /32 or /128.
 * Only literals are accepted: parsing never resolves a host name.
 */
public final class NetworkRange {
    private final byte[] network;
    private final int prefixLength;

    private NetworkRange(byte[] network, int prefixLength) {
        this.network = network;
        this.prefixLength = prefixLength;
    }

    /**
     * Parses CIDR text.
     *
     * @throws IllegalArgumentException with a message fit for an administrator
     */
    public static NetworkRange parse(String text) {
        Objects.requireNonNull(text, "text");
        String s = text.trim();
        int slash = s.indexOf('/');
        String addressText = slash < 0 ? s : s.substring(0, slash);
        byte[] address = literal(addressText);
        if (address == null) {
            throw new IllegalArgumentException("\"" + text + "\" is not a network (use an IPv4 or IPv6 address with "
                    + "an optional /prefix, e.g. 10.0.0.0/8 or fd00::/8)");
        }
        int bits = address.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String p = s.substring(slash + 1);
            if (!p.matches("[0-9]{1,3}") || Integer.parseInt(p) > bits) {
                throw new IllegalArgumentException("\"" + text + "\": prefix length must be 0.." + bits);
            }
            prefix = Integer.parseInt(p);
        }
        byte[] masked = mask(address, prefix);
        if (!Arrays.equals(masked, address)) {
            throw new IllegalArgumentException(
                    "\"" + text + "\" has host bits set (did you mean " + format(masked) + "/" + prefix + "?)");
        }
        return new NetworkRange(masked, prefix);
    }

    /** Whether the address lies in this network; IPv4 and IPv6 never match each other. */
    public boolean contains(InetAddress address) {
        if (address == null) {
            return false;
        }
        byte[] a = address.getAddress();
        return a.length == network.length && Arrays.equals(mask(a, prefixLength), network);
    }

    public int prefixLength() {
        return prefixLength;
    }

    private static byte[] mask(byte[] address, int prefix) {
        byte[] out = address.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - i * 8));
            out[i] &= (byte) (0xff << (8 - keep));
        }
        return out;
    }

    /** The bytes of an IPv4 dotted-quad or IPv6 literal, or null; never a name lookup. */
    private static byte[] literal(String s) {
        if (s.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
            for (String part : s.split("\\.", -1)) {
                if (Integer.parseInt(part) > 255) {
                    return null;
                }
            }
        } else if (!s.contains(":") || !s.matches("[0-9A-Fa-f:.]+")) {
            return null;
        }
        try {
            return InetAddress.getByName(s).getAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** Dotted quad, or RFC 5952 IPv6 text (lower case, the longest run of two or more zero groups as "::"). */
    private static String format(byte[] address) {
        if (address.length == 4) {
            return (address[0] & 0xff) + "." + (address[1] & 0xff) + "." + (address[2] & 0xff) + "."
                    + (address[3] & 0xff);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (address[2 * i] & 0xff) << 8 | (address[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLength - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(groups[i]));
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NetworkRange other
                && prefixLength == other.prefixLength
                && Arrays.equals(network, other.network);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(network) * 31 + prefixLength;
    }

    @Override
    public String toString() {
        return format(network) + "/" + prefixLength;
    }
}
