package io.numaiscsi.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** {@code numa-iscsi-admin ls}: targets, their LUNs and sessions as a tree, like {@code targetcli ls}. */
final class TreeView {
    private TreeView() {}

    /** {@code both}: {@code {"targets": target.list's answer, "sessions": session.list's}}. */
    static void print(JsonNode both, PrintWriter out) {
        JsonNode targets = both.path("targets");
        JsonNode sessions = both.path("sessions");
        out.println("o- targets [" + targets.size() + "]");
        for (int i = 0; i < targets.size(); i++) {
            JsonNode t = targets.get(i);
            String name = t.path("name").asText();
            boolean lastTarget = i == targets.size() - 1;
            String pad = lastTarget ? "   " : "|  ";
            out.println(
                    "  o- " + name + (t.has("alias") ? "  (" + t.path("alias").asText() + ")" : ""));
            out.println("  " + pad + "o- acls  initiators " + list(t.path("allow"), "ALL") + ", networks "
                    + list(t.path("allow_networks"), "any") + ", "
                    + (t.has("chap")
                            ? "CHAP user " + t.path("chap").path("username").asText()
                                    + (t.path("chap").has("mutual_username") ? " (mutual)" : "")
                            : "no CHAP"));
            JsonNode luns = t.path("luns");
            out.println("  " + pad + "o- luns [" + luns.size() + "]");
            for (JsonNode l : luns) {
                out.println("  " + pad + "|  o- lun" + l.path("id").asInt() + "  "
                        + l.path("backing").asText()
                        + (l.has("path") ? " " + l.path("path").asText() : "")
                        + (l.has("image") ? " " + l.path("image").asText() : "")
                        + (l.has("access") ? " (" + l.path("access").asText() + ")" : "") + "  "
                        + Views.human(l.path("size").asLong())
                        + "  " + l.path("block_size").asInt() + "-byte blocks"
                        + (l.has("cache_held_bytes")
                                ? "  cache holds "
                                        + Views.human(l.path("cache_held_bytes").asLong())
                                : ""));
            }
            List<JsonNode> mine = new ArrayList<>();
            for (JsonNode s : sessions) {
                if (s.path("target").asText().equals(name)) {
                    mine.add(s);
                }
            }
            out.println("  " + pad + "o- sessions [" + mine.size() + "]");
            for (JsonNode s : mine) {
                out.println("  " + pad + "   o- tsih " + s.path("tsih").asInt() + "  "
                        + s.path("initiator").asText()
                        + "  " + s.path("address").asText() + "  "
                        + s.path("commands_in_flight").asInt()
                        + " in flight");
            }
        }
    }

    private static String list(JsonNode values, String whenEmpty) {
        if (values.isEmpty()) {
            return whenEmpty;
        }
        List<String> all = new ArrayList<>();
        values.forEach(v -> all.add(v.asText()));
        return String.join(" ", all);
    }
}
