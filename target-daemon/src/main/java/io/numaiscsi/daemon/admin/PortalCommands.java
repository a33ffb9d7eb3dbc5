package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The CLI's portal and CHAP subcommands: portal-list, portal-add, portal-remove, chap-list, chap-set. */
final class PortalCommands {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private PortalCommands() {
    }

    @Command(name = "portal-list", description = "The portals listening now: address, transport, bound port.")
    static final class List extends AdminCli.Call {
        @Override
        String method() {
            return "portal.list";
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            for (JsonNode p : r) {
                out.println(p.path("address").asText() + "  " + p.path("transport").asText() + "  port "
                        + p.path("port").asInt());
            }
        }
    }

    @Command(name = "portal-add", description = "Listens on one more iSCSI/TCP portal; discovery reports it at once. "
            + "iSER portals need a restart.")
    static final class Add extends AdminCli.Call {
        @Parameters(index = "0", paramLabel = "ADDR", description = "host:port, e.g. 127.0.0.1:3261")
        String portal;

        @Override
        String method() {
            return "portal.add";
        }

        @Override
        ObjectNode params() {
            return JSON.objectNode().put("portal", portal);
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println("listening on " + r.path("portal").asText());
        }
    }

    @Command(name = "portal-remove", description = "Stops listening on a TCP portal; sessions that came in through it "
            + "go on. The last portal cannot be removed.")
    static final class Remove extends AdminCli.Call {
        @Parameters(index = "0", paramLabel = "ADDR", description = "the portal, as portal-list shows it")
        String portal;

        @Override
        String method() {
            return "portal.remove";
        }

        @Override
        ObjectNode params() {
            return JSON.objectNode().put("portal", portal);
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println("stopped listening on " + r.path("portal").asText() + "; "
                    + r.path("connections_kept").asInt() + " connection(s) through it go on");
        }
    }

    @Command(name = "chap-list", description = "The CHAP users of discovery and of single initiators (no secrets).")
    static final class ChapList extends AdminCli.Call {
        @Override
        String method() {
            return "chap.list";
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println("discovery: " + users(r.path("discovery")));
            for (JsonNode i : r.path("initiators")) {
                out.println("initiator " + i.path("name").asText() + ": " + users(i));
            }
        }
    }

    static String users(JsonNode chap) {
        if (chap.isNull() || chap.isMissingNode()) {
            return "no CHAP";
        }
        return "user " + chap.path("username").asText()
                + (chap.has("mutual_username") ? ", mutual user " + chap.path("mutual_username").asText() : "");
    }

    /** Whose CHAP: discovery sessions', or one initiator's. */
    static final class Whose {
        @Option(names = "--discovery", required = true, description = "the CHAP discovery sessions need")
        boolean discovery;
        @Option(names = "--initiator", required = true, paramLabel = "NAME", description = "this initiator's own "
                + "CHAP, in place of its targets'")
        String initiator;
    }

    /** New credentials (secrets from files, '-': stdin), or --none. */
    static final class Credentials {
        @ArgGroup(exclusive = false)
        Users users;
        @Option(names = "--none", required = true, description = "no CHAP: discovery open, or the initiator back to "
                + "its targets' CHAP")
        boolean none;
    }

    static final class Users {
        @Option(names = "--user", required = true, description = "CHAP user name the initiator must send")
        String user;
        @Option(names = "--secret-file", required = true, paramLabel = "FILE", description = "file holding its secret "
                + "('-': stdin)")
        Path secretFile;
        @Option(names = "--mutual-user", description = "user name the target answers mutual CHAP with")
        String mutualUser;
        @Option(names = "--mutual-secret-file", paramLabel = "FILE", description = "file holding the target's secret")
        Path mutualSecretFile;

        ObjectNode entry() {
            return TargetCommands.Chap.entry(user, secretFile, mutualUser, mutualSecretFile);
        }
    }

    @Command(name = "chap-set", description = "Sets or removes the CHAP of discovery sessions or of one initiator; new "
            + "logins use it at once, sessions logged in go on.")
    static final class ChapSet extends AdminCli.Call {
        @ArgGroup(exclusive = true, multiplicity = "1")
        Whose whose;
        @ArgGroup(exclusive = true, multiplicity = "1")
        Credentials credentials;

        @Override
        String method() {
            return "chap.set";
        }

        @Override
        ObjectNode params() {
            ObjectNode p = JSON.objectNode();
            JsonNode chap = credentials.none ? JSON.nullNode() : credentials.users.entry();
            if (whose.discovery) {
                p.set("discovery", chap);
            } else {
                p.put("initiator", whose.initiator).set("chap", chap);
            }
            return p;
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println(r.has("discovery") ? "discovery: " + users(r.path("discovery"))
                    : "initiator " + r.path("initiator").asText() + ": " + users(r.path("chap")));
        }
    }
}
