package io.numaiscsi.fiotests.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One iSCSI target under test: its portal, target name, the LUNs the matrix uses, and the PID whose CPU is charged. */
record Target(String name, String host, int port, String iqn, List<Integer> luns, long pid) {

    Target {
        luns = List.copyOf(luns);
        if (luns.isEmpty()) {
            throw new IllegalArgumentException("target " + name + ": no LUNs");
        }
    }

    /** {@code iscsi://HOST:PORT/IQN/LUN} of the LUN at {@code index} in {@link #luns()}. */
    String url(int index) {
        return "iscsi://" + host + ":" + port + "/" + iqn + "/" + luns.get(index);
    }

    /** The URL as fio's {@code filename=} wants it: fio splits file names at colons unless escaped. */
    String fioFilename(int index) {
        return url(index).replace(":", "\\:");
    }

    /**
     * Parses {@code name=tgtd,portal=127.0.0.1:13261,iqn=iqn.2026-11.test:tgt,luns=1+2,pid=1234}
     * (the form run-bench.sh passes with {@code --target}).
     */
    static Target parse(String spec) {
        Map<String, String> kv = new LinkedHashMap<>();
        for (String part : spec.split(",", -1)) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("target \"" + spec + "\": \"" + part + "\" is not key=value");
            }
            kv.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
        }
        for (String key : List.of("name", "portal", "iqn", "luns", "pid")) {
            if (!kv.containsKey(key)) {
                throw new IllegalArgumentException("target \"" + spec + "\": missing " + key);
            }
        }
        String portal = kv.get("portal");
        int colon = portal.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("target \"" + spec + "\": portal must be HOST:PORT");
        }
        List<Integer> luns = new ArrayList<>();
        for (String l : kv.get("luns").split("\\+", -1)) {
            luns.add(Integer.parseInt(l));
        }
        return new Target(
                kv.get("name"),
                portal.substring(0, colon),
                Integer.parseInt(portal.substring(colon + 1)),
                kv.get("iqn"),
                luns,
                Long.parseLong(kv.get("pid")));
    }
}
