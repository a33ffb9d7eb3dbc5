package io.numaiscsi.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Locale;

/** The text views of the daemon's answers that are more than one line ({@link TreeView}: {@code ls}). */
final class Views {
    private Views() {}

    /** {@code status}: one "key: value" line per field. */
    static void fields(JsonNode r, PrintWriter out) {
        r.fields()
                .forEachRemaining(e -> out.println(e.getKey() + ": "
                        + (e.getValue().isTextual()
                                ? e.getValue().asText()
                                : e.getValue().toString())));
    }

    static void sessions(JsonNode r, PrintWriter out) {
        for (JsonNode s : r) {
            out.println("tsih " + s.path("tsih").asInt() + "  " + s.path("type").asText() + "  "
                    + s.path("initiator").asText() + "  isid " + s.path("isid").asText() + "  "
                    + s.path("address").asText() + "  -> " + s.path("target").asText() + "  "
                    + s.path("commands_in_flight").asInt() + " in flight");
            JsonNode n = s.get("negotiated");
            if (n != null) {
                StringBuilder sb = new StringBuilder("    ");
                n.fields()
                        .forEachRemaining(e -> sb.append(e.getKey())
                                .append('=')
                                .append(e.getValue().asText())
                                .append(' '));
                out.println(sb.toString().stripTrailing());
            }
        }
    }

    static void targetSet(JsonNode r, PrintWriter out) {
        out.println("changed " + r.path("target").asText()
                + (r.has("sessions_asked_to_log_out")
                        ? "; " + r.path("sessions_asked_to_log_out").asInt() + " session(s) asked to log out"
                        : "; " + r.path("sessions_the_new_rules_would_refuse").asInt()
                                + " session(s) the new rules refuse stay logged in (use --force to end them)"));
    }

    static void logout(JsonNode r, PrintWriter out) {
        out.println(
                "session " + r.path("tsih").asInt() + (r.path("closed").asBoolean() ? " closed" : " asked to log out"));
    }

    static void portals(JsonNode r, PrintWriter out) {
        for (JsonNode p : r) {
            out.println(p.path("address").asText() + "  " + p.path("transport").asText() + "  port "
                    + p.path("port").asInt());
        }
    }

    static void chapList(JsonNode r, PrintWriter out) {
        out.println("discovery: " + users(r.path("discovery")));
        for (JsonNode i : r.path("initiators")) {
            out.println("initiator " + i.path("name").asText() + ": " + users(i));
        }
    }

    static void chapSet(JsonNode r, PrintWriter out) {
        out.println(
                r.has("discovery")
                        ? "discovery: " + users(r.path("discovery"))
                        : "initiator " + r.path("initiator").asText() + ": " + users(r.path("chap")));
    }

    private static String users(JsonNode chap) {
        if (chap.isNull() || chap.isMissingNode()) {
            return "no CHAP";
        }
        return "user " + chap.path("username").asText()
                + (chap.has("mutual_username")
                        ? ", mutual user " + chap.path("mutual_username").asText()
                        : "");
    }

    static void cache(JsonNode r, PrintWriter out) {
        out.println("mode " + r.path("mode").asText() + ", "
                + r.path("write_policy").asText() + ", blocks of "
                + human(r.path("block_size").asLong()));
        for (JsonNode p : r.path("pools")) {
            out.println("node " + p.path("node").asInt() + ": pool "
                    + human(p.path("bytes").asLong()) + ", free "
                    + human(p.path("free_bytes").asLong()));
        }
        for (JsonNode l : r.path("luns")) {
            out.println(l.path("target").asText() + " LUN " + l.path("lun").asInt() + ": holds "
                    + human(l.path("held_bytes").asLong()) + " (dirty "
                    + human(l.path("dirty_bytes").asLong())
                    + "), hit ratio "
                    + String.format(Locale.ROOT, "%.3f", l.path("hit_ratio").asDouble()) + " ("
                    + l.path("hits").asLong() + " hits, " + l.path("misses").asLong() + " misses of which "
                    + l.path("read_throughs").asLong() + " read through, "
                    + l.path("bypasses").asLong() + " bypasses)");
        }
    }

    static void threads(JsonNode r, PrintWriter out) {
        for (JsonNode t : r) {
            out.println(t.path("thread").asText()
                    + (t.has("node")
                            ? "  node " + t.path("node").asInt() + " CPUs "
                                    + t.path("cpus").asText()
                            : "  (not pinned)")
                    + "  " + t.path("commands").asLong() + " commands  "
                    + human(t.path("bytes").asLong()) + "  "
                    + String.format(Locale.ROOT, "%.2f", t.path("cpu_seconds").asDouble()) + " s CPU");
            for (JsonNode lun : t.path("luns")) {
                out.println("    " + lun.asText());
            }
        }
    }

    /** Bytes in binary units, one decimal: "1.5 GiB". */
    static String human(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /** {@code group-status}: the group, its members, then its LUNs. */
    static void groupStatus(JsonNode r, PrintWriter out) {
        out.println("group " + r.path("group").asText() + ", this gateway "
                + r.path("member").asText()
                + ", configuration version " + r.path("version").asLong() + ", placement "
                + r.path("placement").asLong()
                + " (" + r.path("object").asText() + ")");
        if (r.has("problem")) {
            out.println("problem: " + r.path("problem").asText());
        }
        out.println("members:");
        for (JsonNode m : r.path("members")) {
            out.println("  " + m.path("name").asText() + "  port "
                    + m.path("port").asInt() + "  "
                    + (m.path("up").asBoolean() ? "up" : "DOWN")
                    + (m.has("seen_seconds_ago")
                            ? "  seen " + m.path("seen_seconds_ago").asLong() + " s ago, version "
                                    + m.path("version").asLong()
                            : "  never seen")
                    + (m.has("problem") ? "  problem: " + m.path("problem").asText() : ""));
        }
        out.println("LUNs:");
        for (JsonNode l : r.path("luns")) {
            JsonNode served = l.path("served_by");
            out.println("  " + l.path("target").asText() + " LUN "
                    + l.path("lun").asInt() + "  "
                    + l.path("image").asText() + "  owner " + l.path("owner").asText() + "  served by "
                    + (served.isNull() || served.isMissingNode() ? "nobody" : served.asText()));
        }
    }

    /** A group change: the version written and which members serve it. */
    static void groupChange(JsonNode r, PrintWriter out) {
        StringBuilder line = new StringBuilder(
                "group configuration version " + r.path("version").asLong());
        if (r.has("lun")) {
            line.append(": ")
                    .append(r.path("lun").asText())
                    .append(" owned by ")
                    .append(r.path("owner").asText())
                    .append(", served by ")
                    .append(
                            r.path("served_by").isNull()
                                    ? "nobody yet"
                                    : r.path("served_by").asText());
        }
        if (r.has("removed")) {
            line.append(": removed ").append(r.path("removed").asText());
        }
        out.println(line);
        r.path("members")
                .fields()
                .forEachRemaining(
                        e -> out.println("  " + e.getKey() + ": " + e.getValue().asText()));
    }
}
