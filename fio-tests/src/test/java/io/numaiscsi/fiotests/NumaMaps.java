package io.numaiscsi.fiotests;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code /proc/PID/numa_maps}: one line per mapping, its memory policy and its resident pages per node
 * ({@code N0=}, {@code N1=} ...). File mappings ({@code file=}) are left out of the region search:
 * their page-cache pages stay wherever they were first read (fio-tests/README.md, "Java in the guest").
 */
record NumaMaps(List<Mapping> mappings) {

    /** One line: start address, policy (e.g. {@code bind:1}), file or null, resident pages per node. */
    record Mapping(
            String address, String policy, String file, Map<Integer, Long> pagesPerNode, int pageKb, String line) {

        boolean anonymous() {
            return file == null;
        }

        long pages() {
            return pagesPerNode.values().stream().mapToLong(Long::longValue).sum();
        }

        long bytes() {
            return pages() * pageKb * 1024L;
        }

        /** Whether every resident page is on {@code node}. */
        boolean allOn(int node) {
            return pages() > 0 && pagesPerNode.getOrDefault(node, 0L) == pages();
        }
    }

    static NumaMaps parse(List<String> lines) {
        List<Mapping> out = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.strip().split("\\s+");
            if (f.length < 2 || !f[0].matches("[0-9a-f]+")) {
                continue;
            }
            String file = null;
            int pageKb = 4;
            Map<Integer, Long> perNode = new TreeMap<>();
            for (int i = 2; i < f.length; i++) {
                String field = f[i];
                if (field.startsWith("file=")) {
                    file = field.substring(5);
                } else if (field.startsWith("kernelpagesize_kB=")) {
                    pageKb = Integer.parseInt(field.substring(18));
                } else if (field.matches("N\\d+=\\d+")) {
                    int eq = field.indexOf('=');
                    perNode.put(Integer.parseInt(field.substring(1, eq)), Long.parseLong(field.substring(eq + 1)));
                }
            }
            out.add(new Mapping(f[0], f[1], file, Map.copyOf(perNode), pageKb, line.strip()));
        }
        return new NumaMaps(List.copyOf(out));
    }

    /**
     * The cache region of {@code node}: the largest anonymous mapping whose resident pages are all on that
     * node and add up to at least {@code minBytes}; empty if there is none.
     */
    Optional<Mapping> regionOn(int node, long minBytes) {
        return mappings.stream()
                .filter(Mapping::anonymous)
                .filter(m -> m.allOn(node) && m.bytes() >= minBytes)
                .max(Comparator.comparingLong(Mapping::bytes));
    }

    /** The {@code n} largest anonymous mappings by resident bytes: for messages. */
    List<Mapping> largestAnonymous(int n) {
        return mappings.stream()
                .filter(Mapping::anonymous)
                .sorted(Comparator.comparingLong(Mapping::bytes).reversed())
                .limit(n)
                .toList();
    }
}
