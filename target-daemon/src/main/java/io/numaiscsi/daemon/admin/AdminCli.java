package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code numa-iscsi-admin}: the admin API from a shell. Exit codes: 0 done, 1 the daemon refused (its message on
 * stderr), 2 a usage error, 3 no daemon answers on the socket.
 */
@Command(name = "numa-iscsi-admin", mixinStandardHelpOptions = true, version = "numa-iscsi-admin 0.1.0",
        description = "Inspect and change a running numa-iscsi-target through its admin socket.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "1:the daemon refused the request (the reason on stderr)", "2:usage error",
            "3:no daemon answers on the socket"},
        subcommands = {AdminCli.Ls.class, AdminCli.Status.class, AdminCli.Sessions.class, TargetCommands.Create.class,
            TargetCommands.Set.class, TargetCommands.Delete.class, TargetCommands.Logout.class, AdminCli.LunAdd.class,
            AdminCli.LunRemove.class, LunResizeCommand.class, PortalCommands.List.class, PortalCommands.Add.class,
            PortalCommands.Remove.class, PortalCommands.ChapList.class, PortalCommands.ChapSet.class,
            AdminCli.Save.class, StatusCommands.Cache.class, StatusCommands.Threads.class, AdminCli.LogLevel.class,
            CommandLine.HelpCommand.class,
            picocli.AutoComplete.GenerateCompletion.class})
public final class AdminCli {
    static final int EXIT_REFUSED = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_UNREACHABLE = 3;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--socket", paramLabel = "PATH", scope = CommandLine.ScopeType.INHERIT,
            description = "the daemon's admin socket (default: ${DEFAULT-VALUE})")
    Path socket = defaultSocket();

    @Option(names = "--json", scope = CommandLine.ScopeType.INHERIT, description = "print the daemon's answer as JSON")
    boolean json;

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    static int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new AdminCli());
        cli.setOut(out);
        cli.setErr(err);
        return cli.execute(args);
    }

    /** Where the daemon puts the socket by default: its default data directory (as root /var/lib/...). */
    static Path defaultSocket() {
        String env = System.getenv("NUMA_ISCSI_ADMIN_SOCKET");
        return env != null && !env.isBlank() ? Path.of(env)
                : io.numaiscsi.config.ConfigLoader.defaultDataDir().resolve(AdminSocket.FILE_NAME);
    }

    /** An optional option goes into the request only when given (the daemon applies the config file's default). */
    static void putIfGiven(ObjectNode params, String key, Object value) {
        if (value != null) {
            params.set(key, JSON.valueToTree(value));
        }
    }

    /** A subcommand: one call, its answer printed as text or JSON. */
    abstract static class Call implements Callable<Integer> {
        @ParentCommand
        AdminCli top;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        abstract String method();

        ObjectNode params() {
            return JSON.createObjectNode();
        }

        /** The answer to print: one call of {@link #method()} unless a command needs more. */
        JsonNode fetch(AdminClient client) throws IOException, AdminClient.Refused {
            return client.call(method(), params());
        }

        abstract void print(JsonNode result, PrintWriter out);

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            JsonNode result;
            try (AdminClient client = new AdminClient(top.socket)) {
                result = fetch(client);
            } catch (AdminClient.Refused e) {
                err.println("numa-iscsi-admin: " + e.getMessage());
                return EXIT_REFUSED;
            } catch (IOException e) {
                err.println("numa-iscsi-admin: no daemon answers on " + top.socket + ": " + e.getMessage());
                return EXIT_UNREACHABLE;
            } catch (IllegalArgumentException e) { // an option's value the CLI itself cannot use
                err.println("numa-iscsi-admin: " + e.getMessage());
                return EXIT_USAGE;
            }
            if (top.json) {
                out.println(result.toPrettyString());
            } else {
                print(result, out);
            }
            return 0;
        }
    }

    @Command(name = "ls", description = "Targets, their LUNs and sessions, as a tree.")
    static final class Ls extends Call {
        @Override
        String method() {
            return "target.list";
        }

        /** The targets and the sessions, drawn as one tree. */
        @Override
        JsonNode fetch(AdminClient client) throws IOException, AdminClient.Refused {
            ObjectNode both = JSON.createObjectNode();
            both.set("targets", client.call("target.list", JSON.createObjectNode()));
            both.set("sessions", client.call("session.list", JSON.createObjectNode()));
            return both;
        }

        @Override
        void print(JsonNode both, PrintWriter out) {
            TreeView.print(both.get("targets"), both.get("sessions"), out);
        }
    }

    @Command(name = "status", description = "Portals, counts of targets, LUNs and sessions, the event model and cache.")
    static final class Status extends Call {
        @Override
        String method() {
            return "daemon.status";
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            r.fields().forEachRemaining(e -> out.println(e.getKey() + ": "
                    + (e.getValue().isTextual() ? e.getValue().asText() : e.getValue().toString())));
        }
    }

    @Command(name = "sessions", description = "Sessions with initiator, address and negotiated parameters.")
    static final class Sessions extends Call {
        @Override
        String method() {
            return "session.list";
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            for (JsonNode s : r) {
                out.println("tsih " + s.path("tsih").asInt() + "  " + s.path("type").asText() + "  "
                        + s.path("initiator").asText() + "  isid " + s.path("isid").asText() + "  "
                        + s.path("address").asText() + "  -> " + s.path("target").asText() + "  "
                        + s.path("commands_in_flight").asInt() + " in flight");
                JsonNode n = s.get("negotiated");
                if (n != null) {
                    StringBuilder sb = new StringBuilder("    ");
                    n.fields().forEachRemaining(e -> sb.append(e.getKey()).append('=').append(e.getValue().asText()).append(' '));
                    out.println(sb.toString().stripTrailing());
                }
            }
        }
    }

    @Command(name = "lun-add", description = "Adds a LUN to a running target; its sessions see it at once "
            + "(REPORTED LUNS DATA HAS CHANGED).")
    static final class LunAdd extends Call {
        @Parameters(index = "0", paramLabel = "TARGET", description = "the target's IQN")
        String target;
        @Option(names = "--id", required = true, description = "LUN number")
        int id;
        @Option(names = "--backing", required = true, description = "file, ram or block")
        String backing;
        @Option(names = "--size", description = "size, e.g. 1G (required but for block: the device's)")
        String size;
        @Option(names = "--path", description = "backing file (backing file; relative to the data directory) or "
                + "device (backing block)")
        String path;
        @Option(names = "--block-size", description = "512 or 4096 (block: the device's logical block size)")
        Integer blockSize;
        @Option(names = "--serial", description = "unit serial number")
        String serial;

        @Override
        String method() {
            return "lun.add";
        }

        @Override
        ObjectNode params() {
            ObjectNode p = JSON.createObjectNode().put("target", target);
            ObjectNode lun = p.putObject("lun").put("id", id).put("backing", backing);
            putIfGiven(lun, "size", size);
            putIfGiven(lun, "path", path);
            putIfGiven(lun, "block-size", blockSize);
            putIfGiven(lun, "serial", serial);
            return p;
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println("added LUN " + r.path("id").asInt() + " to " + r.path("target").asText());
        }
    }

    @Command(name = "lun-remove", description = "Removes a LUN from a running target; its store is flushed and closed "
            + "once its commands in flight complete.")
    static final class LunRemove extends Call {
        @Parameters(index = "0", paramLabel = "TARGET", description = "the target's IQN")
        String target;
        @Option(names = "--id", required = true, description = "LUN number")
        int id;

        @Override
        String method() {
            return "lun.remove";
        }

        @Override
        ObjectNode params() {
            return JSON.createObjectNode().put("target", target).put("id", id);
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println("removed LUN " + r.path("id").asInt() + " from " + r.path("target").asText());
        }
    }

    @Command(name = "save", description = "Writes the running configuration (LUNs added or removed through the API "
            + "included) to the daemon's --config file, or to PATH; a SIGHUP or restart then keeps it. The file "
            + "replaced is kept as FILE.bak.")
    static final class Save extends Call {
        @Parameters(index = "0", arity = "0..1", paramLabel = "PATH", description = "another file to write")
        Path path;

        @Override
        String method() {
            return "config.save";
        }

        /** The path made absolute here: the daemon's working directory is not this shell's. */
        @Override
        ObjectNode params() {
            ObjectNode p = JSON.createObjectNode();
            putIfGiven(p, "path", path == null ? null : path.toAbsolutePath().toString());
            return p;
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println("saved the running configuration (" + r.path("targets").asInt() + " targets, "
                    + r.path("luns").asInt() + " LUNs) to " + r.path("path").asText());
        }
    }

    @Command(name = "log-level", description = "Sets the log level, of the whole daemon or of one logger.")
    static final class LogLevel extends Call {
        @Parameters(index = "0", paramLabel = "LEVEL", description = "error, warn, info, debug or trace")
        String level;
        @Option(names = "--logger", description = "a logger name (a class or package); default: all")
        String logger;

        @Override
        String method() {
            return "log.level";
        }

        @Override
        ObjectNode params() {
            ObjectNode p = JSON.createObjectNode().put("level", level);
            putIfGiven(p, "logger", logger);
            return p;
        }

        @Override
        void print(JsonNode r, PrintWriter out) {
            out.println(r.path("logger").asText() + ": " + r.path("was").asText() + " -> " + r.path("level").asText());
        }
    }
}
