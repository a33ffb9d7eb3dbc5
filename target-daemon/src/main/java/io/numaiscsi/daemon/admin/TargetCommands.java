package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The CLI's target and session subcommands: target-create, target-set, target-delete, session-logout. */
final class TargetCommands {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private TargetCommands() {
    }

    /** CHAP from options; secrets are read from files ("-": standard input), never taken on the command line. */
    static final class Chap {
        @Option(names = "--chap-user", description = "CHAP user name the initiator must send")
        String user;
        @Option(names = "--chap-secret-file", paramLabel = "FILE", description = "file holding its secret ('-': stdin)")
        Path secretFile;
        @Option(names = "--mutual-user", description = "user name the target answers mutual CHAP with")
        String mutualUser;
        @Option(names = "--mutual-secret-file", paramLabel = "FILE", description = "file holding the target's secret")
        Path mutualSecretFile;

        boolean given() {
            return user != null || secretFile != null || mutualUser != null || mutualSecretFile != null;
        }

        ObjectNode entry() {
            return entry(user, secretFile, mutualUser, mutualSecretFile);
        }

        /** A config file's chap mapping of what was given, secrets read from their files. */
        static ObjectNode entry(String user, Path secretFile, String mutualUser, Path mutualSecretFile) {
            ObjectNode chap = JSON.objectNode();
            AdminCli.putIfGiven(chap, "username", user);
            AdminCli.putIfGiven(chap, "secret", secretFile == null ? null : secret(secretFile));
            AdminCli.putIfGiven(chap, "mutual-username", mutualUser);
            AdminCli.putIfGiven(chap, "mutual-secret", mutualSecretFile == null ? null : secret(mutualSecretFile));
            return chap;
        }

        /** The file's first line: a secret typed into a file usually ends with a newline that is not part of it. */
        static String secret(Path file) {
            try {
                String text = file.toString().equals("-") ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
                        : Files.readString(file, StandardCharsets.UTF_8);
                return text.lines().findFirst().orElse("");
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read the secret from " + file + ": " + e.getMessage(), e);
            }
        }
    }

    @Command(name = "target-create", description = "Creates a target with its LUNs; initiators can log in at once.")
    static final class Create extends AdminCli.Call {
        @Parameters(index = "0", paramLabel = "TARGET", description = "the new target's IQN")
        String target;
        @Option(names = "--lun", required = true, paramLabel = "KEY=VALUE,...",
                description = "a LUN as config keys, e.g. id=0,backing=ram,size=1G or id=1,backing=file,path=d1.img,size=10G;"
                        + " repeatable")
        List<String> luns = new ArrayList<>();
        @Option(names = "--alias", description = "TargetAlias")
        String alias;
        @Option(names = "--allow", paramLabel = "IQN", description = "an initiator allowed to log in; repeatable "
                + "(default: any)")
        List<String> allow;
        @Option(names = "--allow-network", paramLabel = "CIDR", description = "a source network allowed; repeatable "
                + "(default: any)")
        List<String> networks;
        @CommandLine.ArgGroup(exclusive = false)
        Chap chap;

        @Override
        String method() {
            return "target.create";
        }

        @Override
        ObjectNode params() {
            ObjectNode p = JSON.objectNode();
            ObjectNode t = p.putObject("target").put("name", target);
            AdminCli.putIfGiven(t, "alias", alias);
            AdminCli.putIfGiven(t, "allow", allow);
            AdminCli.putIfGiven(t, "allow-networks", networks);
            if (chap != null && chap.given()) {
                t.set("chap", chap.entry());
            }
            var array = t.putArray("luns");
            for (String lun : luns) {
                array.add(keyValues(lun));
            }
            return p;
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println("created " + r.path("target").asText() + " with " + r.path("luns").asInt() + " LUN(s)");
        }
    }

    /** "id=0,backing=ram,size=1G" as a JSON object; numbers stay text (the config rules read both). */
    static ObjectNode keyValues(String text) {
        ObjectNode o = JSON.objectNode();
        for (String pair : text.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--lun " + text + ": \"" + pair + "\" is not KEY=VALUE");
            }
            o.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return o;
    }

    @Command(name = "target-set", description = "Changes a target's alias, allowed initiators and networks, or CHAP; "
            + "new logins follow at once, --force asks the sessions the new rules refuse to log out.")
    static final class Set extends AdminCli.Call {
        @Parameters(index = "0", paramLabel = "TARGET", description = "the target's IQN")
        String target;
        @Option(names = "--alias", description = "new TargetAlias")
        String alias;
        @Option(names = "--no-alias", description = "remove the alias")
        boolean noAlias;
        @Option(names = "--allow", paramLabel = "IQN", description = "allowed initiators (replaces the list; ALL: any)")
        List<String> allow;
        @Option(names = "--allow-network", paramLabel = "CIDR", description = "allowed networks (replaces the list)")
        List<String> networks;
        @Option(names = "--any-network", description = "allow any source network")
        boolean anyNetwork;
        @CommandLine.ArgGroup(exclusive = false)
        Chap chap;
        @Option(names = "--no-chap", description = "no CHAP from now on")
        boolean noChap;
        @Option(names = "--force", description = "ask the sessions the new rules refuse to log out (all with a CHAP "
                + "change)")
        boolean force;

        @Override
        String method() {
            return "target.set";
        }

        @Override
        ObjectNode params() {
            ObjectNode p = JSON.objectNode().put("target", target);
            if (noAlias) {
                p.putNull("alias");
            }
            AdminCli.putIfGiven(p, "alias", alias);
            AdminCli.putIfGiven(p, "allow", allow);
            if (anyNetwork) {
                p.putNull("allow-networks");
            }
            AdminCli.putIfGiven(p, "allow-networks", networks);
            if (noChap) {
                p.putNull("chap");
            } else if (chap != null && chap.given()) {
                p.set("chap", chap.entry());
            }
            if (force) {
                p.put("force", true);
            }
            return p;
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println("changed " + r.path("target").asText() + (r.has("sessions_asked_to_log_out")
                    ? "; " + r.path("sessions_asked_to_log_out").asInt() + " session(s) asked to log out"
                    : "; " + r.path("sessions_the_new_rules_would_refuse").asInt()
                    + " session(s) the new rules refuse stay logged in (use --force to end them)"));
        }
    }

    @Command(name = "target-delete", description = "Deletes a target and its LUNs (their stores are flushed and closed); "
            + "refused while sessions are logged in, unless --force asks them to log out.")
    static final class Delete extends AdminCli.Call {
        @Parameters(index = "0", paramLabel = "TARGET", description = "the target's IQN")
        String target;
        @Option(names = "--force", description = "delete it even with sessions logged in, asking them to log out")
        boolean force;

        @Override
        String method() {
            return "target.delete";
        }

        @Override
        ObjectNode params() {
            return JSON.objectNode().put("target", target).put("force", force);
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println("deleted " + r.path("target").asText() + "; " + r.path("sessions_asked_to_log_out").asInt()
                    + " session(s) asked to log out");
        }
    }

    @Command(name = "session-logout", description = "Asks a session's initiator to log out (an iSCSI Asynchronous "
            + "Message; disconnected if it has not within 5 s); --force disconnects it now.")
    static final class Logout extends AdminCli.Call {
        @Parameters(index = "0", paramLabel = "TSIH", description = "the session, as `sessions` lists it")
        int tsih;
        @Option(names = "--force", description = "close the connection now")
        boolean force;

        @Override
        String method() {
            return "session.logout";
        }

        @Override
        ObjectNode params() {
            return JSON.objectNode().put("tsih", tsih).put("force", force);
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println("session " + r.path("tsih").asInt() + (r.path("closed").asBoolean() ? " closed"
                    : " asked to log out"));
        }
    }
}
