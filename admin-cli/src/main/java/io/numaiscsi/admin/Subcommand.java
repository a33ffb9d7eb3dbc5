package io.numaiscsi.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * One subcommand of numa-iscsi-admin, all of the same shape: its parameters become the params of one JSON-RPC
 * method, the daemon's answer is printed as text (or, with --json, as it came), a refusal as the daemon's words.
 * {@link Commands} lists them.
 */
final class Subcommand {
    private static final Pattern FIELD = Pattern.compile("\\{([a-z_]+)}");

    /** What a command prints of the daemon's answer. */
    interface Printer {
        void print(JsonNode result, PrintWriter out);
    }

    /** How a command gets its answer: one call of its method, unless it needs more. */
    interface Fetch {
        JsonNode fetch(AdminClient client, String method, ObjectNode params) throws IOException, AdminClient.Refused;
    }

    /** Where and how this run talks and writes: the socket, --json, stdout, stderr. */
    record Invocation(Path socket, boolean json, PrintWriter out, PrintWriter err) {}

    private final String name;
    private final String method;
    private final String description;
    private final List<Member> members = new ArrayList<>();
    private Fetch fetch = AdminClient::call;
    private UnaryOperator<ObjectNode> finish = UnaryOperator.identity();
    private Printer printer;

    private Subcommand(String name, String method, String description) {
        this.name = name;
        this.method = method;
        this.description = description;
    }

    /** {@code name} calls the daemon's {@code method}; {@code description} is its help text. */
    static Subcommand of(String name, String method, String description) {
        return new Subcommand(name, method, description);
    }

    Subcommand with(Member... more) {
        members.addAll(List.of(more));
        return this;
    }

    Subcommand fetch(Fetch how) {
        this.fetch = how;
        return this;
    }

    /** A last change to the params built from the parameters, for a request whose shape depends on a choice. */
    Subcommand finish(UnaryOperator<ObjectNode> how) {
        this.finish = how;
        return this;
    }

    Subcommand prints(Printer how) {
        this.printer = how;
        return this;
    }

    /** Prints one line: {@code template} with each {@code {field}} replaced by that field of the answer. */
    Subcommand says(String template) {
        return prints((result, out) -> {
            Matcher m = FIELD.matcher(template);
            StringBuilder line = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(
                        line, Matcher.quoteReplacement(result.path(m.group(1)).asText()));
            }
            out.println(m.appendTail(line));
        });
    }

    String name() {
        return name;
    }

    String method() {
        return method;
    }

    /** This command's picocli model; its user object is this, for {@link AdminCli} to run. */
    CommandSpec spec(String version) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(this).name(name).version(version);
        spec.mixinStandardHelpOptions(true);
        spec.usageMessage()
                .description(description)
                .footerHeading("%n")
                .footer("JSON-RPC method: " + method)
                .exitCodeListHeading("%nExit codes:%n")
                .exitCodeList(Exit.list());
        members.forEach(m -> m.addTo(spec));
        return spec;
    }

    /** The request's params from what was given. */
    ObjectNode params(ParseResult parsed) {
        List<Param> params = new ArrayList<>();
        members.forEach(m -> m.collect(params));
        ObjectNode request = JsonNodeFactory.instance.objectNode();
        params.forEach(p -> p.putInto(request, parsed));
        return finish.apply(request);
    }

    /** Builds the request, calls the daemon, prints its answer; the exit code. */
    int run(ParseResult parsed, Invocation call) {
        ObjectNode params;
        try {
            params = params(parsed);
        } catch (IllegalArgumentException e) {
            return fail(call, Exit.USAGE, e.getMessage());
        }
        AdminClient client;
        try {
            client = AdminClient.connect(call.socket());
        } catch (IOException e) {
            return fail(call, Exit.UNREACHABLE, Plain.unreachable(call.socket(), e));
        }
        JsonNode result;
        try (client) {
            result = fetch.fetch(client, method, params);
        } catch (AdminClient.Refused e) {
            return fail(call, Exit.REFUSED, e.getMessage());
        } catch (IOException e) {
            return fail(call, Exit.UNREACHABLE, Plain.brokenOff(call.socket(), e));
        }
        if (call.json()) {
            call.out().println(result.toPrettyString());
        } else {
            printer.print(result, call.out());
        }
        call.out().flush();
        return Exit.DONE.code;
    }

    private static int fail(Invocation call, Exit exit, String message) {
        call.err().println(AdminCli.NAME + ": " + message);
        call.err().flush();
        return exit.code;
    }
}
