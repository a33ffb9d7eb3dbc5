package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Command;

/** The CLI's read-only views of the cache and the event threads. */
final class StatusCommands {
    private StatusCommands() {
    }

    @Command(name = "cache", description = "The NUMA cache: each node's pool, and per LUN what it holds and its hit ratio "
            + "(hits / (hits + misses + bypasses)).")
    static final class Cache extends AdminCli.Call {
        @Override
        String method() {
            return "cache.status";
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println("mode " + r.path("mode").asText() + ", " + r.path("write_policy").asText() + ", blocks of "
                    + TreeView.human(r.path("block_size").asLong()));
            for (JsonNode p : r.path("pools")) {
                out.println("node " + p.path("node").asInt() + ": pool " + TreeView.human(p.path("bytes").asLong())
                        + ", free " + TreeView.human(p.path("free_bytes").asLong()));
            }
            for (JsonNode l : r.path("luns")) {
                out.println(l.path("target").asText() + " LUN " + l.path("lun").asInt() + ": holds "
                        + TreeView.human(l.path("held_bytes").asLong()) + " (dirty "
                        + TreeView.human(l.path("dirty_bytes").asLong()) + "), hit ratio "
                        + String.format(Locale.ROOT, "%.3f", l.path("hit_ratio").asDouble()) + " (" + l.path("hits").asLong()
                        + " hits, " + l.path("misses").asLong() + " misses of which " + l.path("read_throughs").asLong()
                        + " read through, " + l.path("bypasses").asLong() + " bypasses)");
            }
        }
    }

    @Command(name = "threads", description = "The event threads: node, CPUs, commands, bytes, CPU time and their LUNs.")
    static final class Threads extends AdminCli.Call {
        @Override
        String method() {
            return "thread.list";
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            for (JsonNode t : r) {
                out.println(t.path("thread").asText() + (t.has("node") ? "  node " + t.path("node").asInt() + " CPUs "
                        + t.path("cpus").asText() : "  (not pinned)") + "  " + t.path("commands").asLong() + " commands  "
                        + TreeView.human(t.path("bytes").asLong()) + "  " + String.format(Locale.ROOT, "%.2f",
                        t.path("cpu_seconds").asDouble()) + " s CPU");
                for (JsonNode lun : t.path("luns")) {
                    out.println("    " + lun.asText());
                }
            }
        }
    }
}
