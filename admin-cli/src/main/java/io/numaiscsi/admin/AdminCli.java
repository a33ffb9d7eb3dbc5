package io.numaiscsi.admin;

import io.numaiscsi.config.ConfigLoader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;

/**
 * {@code numa-iscsi-admin}: the daemon's admin API from a shell. The subcommands are the rows of {@link Commands};
 * this wires them into one picocli command line with the options they share (--socket, --json), and turns every
 * failure into a line of plain words and an {@link Exit} code.
 */
public final class AdminCli {
    static final String NAME = "numa-iscsi-admin";
    static final String VERSION = NAME + " 0.1.0";
    /** The socket's name in the daemon's data directory (the daemon's --admin-socket default). */
    static final String SOCKET_FILE = "admin.sock";

    static final String SOCKET_ENV = "NUMA_ISCSI_ADMIN_SOCKET";

    private AdminCli() {}

    public static void main(String[] args) {
        System.exit(run(
                new PrintWriter(new OutputStreamWriter(System.out, Charset.defaultCharset()), true),
                new PrintWriter(new OutputStreamWriter(System.err, Charset.defaultCharset()), true),
                args));
    }

    static int run(PrintWriter out, PrintWriter err, String... args) {
        return commandLine(out, err).execute(args);
    }

    /** The whole command line: the shared options, every subcommand of {@link Commands}, help and completion. */
    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandSpec top = CommandSpec.create().name(NAME).version(VERSION);
        top.mixinStandardHelpOptions(true);
        top.usageMessage()
                .description("Inspect and change a running numa-iscsi-target through its admin socket. " + "'" + NAME
                        + " COMMAND --help' shows a command's options.")
                .exitCodeListHeading("%nExit codes:%n")
                .exitCodeList(Exit.list());
        top.addOption(OptionSpec.builder("--socket")
                .paramLabel("PATH")
                .type(Path.class)
                .scopeType(ScopeType.INHERIT)
                .description("the daemon's admin socket (default: $" + SOCKET_ENV + ", else " + defaultSocket() + ")")
                .build());
        top.addOption(OptionSpec.builder("--json")
                .type(boolean.class)
                .scopeType(ScopeType.INHERIT)
                .description("print the daemon's answer as JSON")
                .build());
        CommandLine cli = new CommandLine(top);
        for (Subcommand command : Commands.ALL) {
            cli.addSubcommand(command.name(), new CommandLine(command.spec(VERSION)));
        }
        cli.addSubcommand("help", new CommandLine.HelpCommand());
        cli.addSubcommand("generate-completion", new AutoComplete.GenerateCompletion());
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionStrategy(AdminCli::execute);
        cli.setParameterExceptionHandler(AdminCli::usageError);
        cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
            err.println(NAME + ": "
                    + (e.getMessage() == null
                            ? "failed unexpectedly (please report the command line)"
                            : e.getMessage()));
            return Exit.REFUSED.code;
        });
        return cli;
    }

    /** Where the daemon puts its socket unless told otherwise: its default data directory (as root /var/lib/...). */
    static Path defaultSocket() {
        String env = System.getenv(SOCKET_ENV);
        return env != null && !env.isBlank()
                ? Path.of(env)
                : ConfigLoader.defaultDataDir().resolve(SOCKET_FILE);
    }

    private static int execute(ParseResult top) {
        Integer help = CommandLine.executeHelpRequest(top);
        if (help != null) {
            return help;
        }
        ParseResult last = top;
        while (last.hasSubcommand()) {
            last = last.subcommand();
        }
        CommandLine cli = top.commandSpec().commandLine();
        if (last == top) {
            cli.getErr().println(NAME + ": give a command");
            cli.usage(cli.getErr());
            return Exit.USAGE.code;
        }
        if (!(last.commandSpec().userObject() instanceof Subcommand command)) {
            return new CommandLine.RunLast().execute(top); // help, generate-completion
        }
        // --socket and --json may stand before the command or after it
        Path socket = last.matchedOptionValue("--socket", top.matchedOptionValue("--socket", defaultSocket()));
        boolean json = last.hasMatchedOption("--json") || top.hasMatchedOption("--json");
        return command.run(last, new Subcommand.Invocation(socket, json, cli.getOut(), cli.getErr()));
    }

    /** A usage error: picocli's words (they name the option), suggestions for a typo, and where the help is. */
    private static int usageError(ParameterException e, String[] args) {
        CommandLine cli = e.getCommandLine();
        PrintWriter err = cli.getErr();
        err.println(NAME + ": " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        String command = cli.getCommandSpec().qualifiedName();
        err.println("(see '" + command + " --help')");
        return Exit.USAGE.code;
    }
}
