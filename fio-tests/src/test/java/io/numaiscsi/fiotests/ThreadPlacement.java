package io.numaiscsi.fiotests;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where a process's threads may run, as the guest script records it: one line per thread,
 * {@code TID<TAB>comm<TAB>Cpus_allowed_list}, and the nodes' CPUs as {@code nodeN CPULIST} lines
 * (from {@code /sys/devices/system/node/nodeN/cpulist}).
 */
record ThreadPlacement(List<Thread> threads, Map<Integer, TreeSet<Integer>> nodeCpus) {

    record Thread(int tid, String comm, TreeSet<Integer> cpus) {}

    static ThreadPlacement parse(List<String> threadLines, List<String> nodeLines) {
        List<Thread> threads = new ArrayList<>();
        for (String line : threadLines) {
            String[] f = line.split("\t");
            if (f.length == 3 && f[0].strip().matches("\\d+")) {
                threads.add(new Thread(Integer.parseInt(f[0].strip()), f[1].strip(), cpuList(f[2].strip())));
            }
        }
        Map<Integer, TreeSet<Integer>> nodes = new TreeMap<>();
        for (String line : nodeLines) {
            String[] f = line.strip().split("\\s+");
            if (f.length == 2 && f[0].matches("node\\d+")) {
                nodes.put(Integer.parseInt(f[0].substring(4)), cpuList(f[1]));
            }
        }
        return new ThreadPlacement(List.copyOf(threads), Collections.unmodifiableMap(nodes));
    }

    /** A kernel CPU list such as {@code 0-3,8,10-11}. */
    static TreeSet<Integer> cpuList(String list) {
        TreeSet<Integer> cpus = new TreeSet<>();
        for (String part : list.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int dash = part.indexOf('-');
            int from = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
            int to = dash < 0 ? from : Integer.parseInt(part.substring(dash + 1));
            for (int c = from; c <= to; c++) {
                cpus.add(c);
            }
        }
        return cpus;
    }

    /** The threads whose name starts with {@code prefix}, e.g. {@code node1-worker}. */
    List<Thread> named(String prefix) {
        return threads.stream().filter(t -> t.comm().startsWith(prefix)).toList();
    }

    /**
     * What is wrong with the node workers' placement, one line each; empty when every
     * {@code nodeN-worker} thread may run only on node N's CPUs and each node in {@code mustHaveWorkers}
     * (those that were sent requests) has at least one. Worker pools start their threads on first use,
     * so a node nothing was forwarded to may have none.
     */
    List<String> workerProblems(Set<Integer> mustHaveWorkers) {
        List<String> problems = new ArrayList<>();
        if (nodeCpus.isEmpty()) {
            problems.add("no node CPU lists recorded");
        }
        for (int node : new TreeSet<>(mustHaveWorkers)) {
            if (named("node" + node + "-worker").isEmpty()) {
                problems.add("no node" + node + "-worker thread");
            }
        }
        nodeCpus.forEach((node, cpus) -> {
            for (Thread t : named("node" + node + "-worker")) {
                if (!t.cpus().equals(cpus)) {
                    problems.add(t.comm() + " (tid " + t.tid() + ") may run on " + t.cpus() + ", node " + node + " has "
                            + cpus);
                }
            }
        });
        return problems;
    }
}
