package io.numaiscsi.admin;

import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * The examples of a Markdown page that a reader copies: every fenced {@code ```yaml} block (a configuration file,
 * checked as {@code numa-iscsi-target --check-config} loads it) and every {@code numa-iscsi-admin} command line in a
 * fenced block (checked with the CLI's own parser). A YAML block that is only part of a file is marked with
 * {@code <!-- fragment -->} on the line before its fence; it is then checked inside a minimal file.
 */
final class DocExamples {
    static final String FRAGMENT_MARK = "<!-- fragment -->";
    /** What a fragment without targets is completed with, so that it loads as a file. */
    static final String FRAGMENT_TARGET = """
            targets:
              - name: iqn.2026-11.io.numaiscsi:fragment
                luns: [{id: 0, backing: ram, size: 1M}]
            """;

    private static final String ADMIN = "numa-iscsi-admin";

    /** A fenced YAML block: where it starts (the line after its fence, 1-based), its text, and whether a fragment. */
    record YamlBlock(String source, int line, String text, boolean fragment) {
        String where() {
            return source + ":" + line;
        }
    }

    /** A numa-iscsi-admin command line: where it starts, as written, and its arguments after the command's name. */
    record AdminCommand(String source, int line, String text, List<String> args) {
        String where() {
            return source + ":" + line;
        }
    }

    private final List<YamlBlock> yaml = new ArrayList<>();
    private final List<AdminCommand> commands = new ArrayList<>();

    private DocExamples() {}

    static DocExamples of(Path page) throws IOException {
        return of(Files.readString(page, StandardCharsets.UTF_8), page.toString());
    }

    /** The examples of the Markdown {@code text}; {@code source} names it in every problem. */
    static DocExamples of(String text, String source) {
        DocExamples found = new DocExamples();
        String[] lines = text.split("\n", -1);
        String previous = "";
        for (int i = 0; i < lines.length; i++) {
            String fence = lines[i].strip();
            if (!fence.startsWith("```")) {
                if (!fence.isEmpty()) {
                    previous = fence;
                }
                continue;
            }
            String language = fence.substring(3).strip();
            int start = i + 1;
            int end = start;
            while (end < lines.length && !lines[end].strip().startsWith("```")) {
                end++;
            }
            int indent = lines[i].indexOf('`');
            List<String> body = new ArrayList<>();
            for (int j = start; j < end; j++) {
                String l = lines[j];
                body.add(l.length() >= indent && l.substring(0, indent).isBlank() ? l.substring(indent) : l.strip());
            }
            if (language.equals("yaml")) {
                found.yaml.add(new YamlBlock(
                        source, start + 1, String.join("\n", body) + "\n", previous.equals(FRAGMENT_MARK)));
            } else {
                found.collectCommands(source, start + 1, body);
            }
            previous = "";
            i = end;
        }
        return found;
    }

    List<YamlBlock> yaml() {
        return yaml;
    }

    List<AdminCommand> commands() {
        return commands;
    }

    /** Each shell line of a block (continuation lines joined), split into commands; those that run the CLI. */
    private void collectCommands(String source, int firstLine, List<String> body) {
        for (int i = 0; i < body.size(); i++) {
            int line = firstLine + i;
            StringBuilder joined = new StringBuilder(body.get(i));
            while (joined.toString().endsWith("\\") && i + 1 < body.size()) {
                joined.setLength(joined.length() - 1);
                joined.append(' ').append(body.get(++i).strip());
            }
            String shell = joined.toString().strip();
            if (shell.startsWith("$ ")) {
                shell = shell.substring(2);
            }
            for (List<String> words : Shell.commands(shell)) {
                int at = commandIndex(words);
                if (at >= 0) {
                    commands.add(new AdminCommand(source, line, shell, words.subList(at + 1, words.size())));
                }
            }
        }
    }

    /** The index of numa-iscsi-admin as the command of {@code words} (after sudo and VAR=value), or -1. */
    private static int commandIndex(List<String> words) {
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (w.equals("sudo") || w.matches("[A-Za-z_][A-Za-z0-9_]*=.*")) {
                continue;
            }
            return w.equals(ADMIN) || w.endsWith("/" + ADMIN) ? i : -1;
        }
        return -1;
    }

    /** What is wrong with a YAML block as a configuration file, or null when it loads. */
    static String problem(YamlBlock block) {
        String text = block.text();
        if (block.fragment() && !text.contains("targets:") && !text.contains("group:")) {
            text = text + FRAGMENT_TARGET;
        }
        try {
            ConfigLoader.parse(text, block.where());
            return null;
        } catch (ConfigException e) {
            return e.getMessage();
        }
    }

    /** What is wrong with a command line as the CLI parses it, or null when it is a command the CLI accepts. */
    static String problem(AdminCommand command) {
        StringWriter sink = new StringWriter();
        CommandLine cli = AdminCli.commandLine(new PrintWriter(sink), new PrintWriter(sink));
        String[] args = command.args().toArray(String[]::new);
        ParseResult parsed;
        try {
            parsed = cli.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            return command.where() + ": " + ADMIN + " " + String.join(" ", args) + ": " + e.getMessage();
        }
        ParseResult last = parsed;
        while (last.hasSubcommand()) {
            last = last.subcommand();
        }
        if (last == parsed && !parsed.isUsageHelpRequested() && !parsed.isVersionHelpRequested()) {
            return command.where() + ": " + ADMIN + " " + String.join(" ", args) + ": no command";
        }
        if (last.commandSpec().userObject() instanceof Subcommand subcommand) {
            try {
                subcommand.params(last); // KEY=VALUE entries and the other values only the run reads
            } catch (IllegalArgumentException e) {
                if (!e.getMessage().contains("cannot read the secret")) { // the example's secret file is not here
                    return command.where() + ": " + ADMIN + " " + String.join(" ", args) + ": " + e.getMessage();
                }
            }
        }
        return null;
    }

    /** Just enough of a POSIX shell to find commands: quotes, comments, and ; && || | $( <( as separators. */
    static final class Shell {
        private Shell() {}

        static List<List<String>> commands(String line) {
            List<List<String>> out = new ArrayList<>();
            List<String> words = new ArrayList<>();
            StringBuilder word = null;
            char quote = 0;
            for (int i = 0; i < line.length(); i++) {
                char c = line.charAt(i);
                if (quote != 0) {
                    if (c == quote) {
                        quote = 0;
                    } else {
                        word.append(c);
                    }
                    continue;
                }
                if (c == '\'' || c == '"') {
                    quote = c;
                    word = word == null ? new StringBuilder() : word;
                } else if (c == '#' && word == null) {
                    break;
                } else if (c == ';'
                        || c == '|'
                        || c == '&'
                        || c == ')'
                        || c == '`'
                        || (c == '('
                                && word != null
                                && (word.toString().endsWith("$")
                                        || word.toString().endsWith("<")))) {
                    if (word != null && (c != '(')) {
                        words.add(word.toString());
                    }
                    word = null;
                    if (!words.isEmpty()) {
                        out.add(words);
                    }
                    words = new ArrayList<>();
                } else if (Character.isWhitespace(c)) {
                    if (word != null) {
                        words.add(word.toString());
                        word = null;
                    }
                } else {
                    word = word == null ? new StringBuilder() : word;
                    word.append(c);
                }
            }
            if (word != null) {
                words.add(word.toString());
            }
            if (!words.isEmpty()) {
                out.add(words);
            }
            return out;
        }
    }
}
