package io.numaiscsi.numa;

import java.util.BitSet;

/** The kernel's cpulist format: {@code 0-3,8-11,16}; empty means no CPUs. */
public final class CpuList {
    private CpuList() {}

    /** @throws IllegalArgumentException on malformed text */
    static BitSet parse(String text) {
        BitSet set = new BitSet();
        String t = text.trim();
        if (t.isEmpty()) {
            return set;
        }
        for (String part : t.split(",", -1)) {
            String p = part.trim();
            if (p.isEmpty()) {
                throw new IllegalArgumentException("empty element in cpulist \"" + text + "\"");
            }
            int dash = p.indexOf('-');
            try {
                if (dash < 0) {
                    set.set(Integer.parseInt(p));
                } else {
                    int from = Integer.parseInt(p.substring(0, dash));
                    int to = Integer.parseInt(p.substring(dash + 1));
                    if (from < 0 || to < from) {
                        throw new IllegalArgumentException("bad range \"" + p + "\" in cpulist \"" + text + "\"");
                    }
                    set.set(from, to + 1);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad cpulist \"" + text + "\"", e);
            }
        }
        return set;
    }

    /** The kernel's list syntax ("0-3,8"), for logs and metrics. */
    public static String format(BitSet cpus) {
        StringBuilder sb = new StringBuilder();
        int start = cpus.nextSetBit(0);
        while (start >= 0) {
            int end = cpus.nextClearBit(start) - 1;
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(start);
            if (end > start) {
                sb.append('-').append(end);
            }
            start = cpus.nextSetBit(end + 1);
        }
        return sb.toString();
    }
}
