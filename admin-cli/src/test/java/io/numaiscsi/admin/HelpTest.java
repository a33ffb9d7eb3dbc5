package io.numaiscsi.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code --help} and {@code -h} of every subcommand, and {@code help SUBCOMMAND}: usage on stdout, exit 0. */
class HelpTest {

    /** Every subcommand the command line has: the table's, help and generate-completion. */
    static Stream<String> subcommands() {
        StringWriter sink = new StringWriter();
        return AdminCli.commandLine(new PrintWriter(sink), new PrintWriter(sink)).getSubcommands().keySet().stream();
    }

    @Test
    void theCommandLineHasEveryCommandOfTheTableAndHelpAndCompletion() {
        List<String> names = subcommands().toList();
        assertEquals(Commands.ALL.size() + 2, names.size(), names.toString());
        for (Subcommand c : Commands.ALL) {
            assertTrue(names.contains(c.name()), c.name());
        }
        assertTrue(names.containsAll(Set.of("help", "generate-completion")), names.toString());
        assertEquals(24, Commands.ALL.size(), "the daemon's 24 methods that the CLI calls");
    }

    @ParameterizedTest
    @MethodSource("subcommands")
    void dashDashHelpPrintsTheUsageAndExitsZero(String command) {
        for (String help : List.of("--help", "-h")) {
            FakeDaemon.Run r = FakeDaemon.run(command, help);
            assertEquals(0, r.exit(), command + " " + help + ": " + r.err());
            assertTrue(r.out().contains("Usage: numa-iscsi-admin " + command + " "), r.out());
            assertEquals("", r.err(), command + " " + help);
        }
    }

    @ParameterizedTest
    @MethodSource("subcommands")
    void helpCommandPrintsTheSameUsage(String command) {
        FakeDaemon.Run r = FakeDaemon.run("help", command);
        assertEquals(0, r.exit(), r.err());
        assertEquals(FakeDaemon.run(command, "--help").out(), r.out());
    }

    @Test
    void everyApiCommandsHelpNamesItsMethodAndTheExitCodes() {
        for (Subcommand c : Commands.ALL) {
            String usage = FakeDaemon.run(c.name(), "--help").out();
            assertTrue(usage.contains("JSON-RPC method: " + c.method()), usage);
            for (Exit e : Exit.values()) {
                assertTrue(
                        usage.contains(
                                "  " + e.code + "   " + e.meaning.substring(0, Math.min(20, e.meaning.length()))),
                        e + " in " + usage);
            }
        }
    }

    @Test
    void topLevelHelpListsTheCommandsAndExitCodesAndNoCommandIsAUsageError() {
        FakeDaemon.Run r = FakeDaemon.run("--help");
        assertEquals(0, r.exit());
        assertTrue(
                r.out().contains("lun-add")
                        && r.out().contains("Exit codes:")
                        && r.out().contains("3   no daemon answers on the socket"),
                r.out());
        FakeDaemon.Run none = FakeDaemon.run();
        assertEquals(Exit.USAGE.code, none.exit());
        assertTrue(none.err().startsWith("numa-iscsi-admin: give a command"), none.err());
        assertEquals(0, FakeDaemon.run("--version").exit());
    }
}
