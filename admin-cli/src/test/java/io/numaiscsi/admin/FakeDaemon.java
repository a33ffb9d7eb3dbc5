package io.numaiscsi.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A stand-in for the daemon's admin socket: it records every request line and answers each with what
 * {@code answer} makes of it (a whole JSON-RPC response, or null to close the connection without one).
 */
final class FakeDaemon implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    /** A run of the CLI: exit code, stdout, stderr. */
    record Run(int exit, String out, String err) {}

    final Path socket;
    final List<JsonNode> requests = new CopyOnWriteArrayList<>();
    private final ServerSocketChannel server;
    private final Function<JsonNode, JsonNode> answer;
    private final Thread thread;

    private FakeDaemon(Path socket, Function<JsonNode, JsonNode> answer) throws IOException {
        this.socket = socket;
        this.answer = answer;
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        this.thread = new Thread(this::serve, "fake-daemon");
        thread.setDaemon(true);
        thread.start();
    }

    /** Answers every request with {@code result}. */
    static FakeDaemon answering(Path socket, JsonNode result) throws IOException {
        return new FakeDaemon(socket, request -> response(request).set("result", result));
    }

    /** Answers every request with a JSON-RPC error. */
    static FakeDaemon refusing(Path socket, int code, String message) throws IOException {
        return new FakeDaemon(socket, request -> {
            ObjectNode r = response(request);
            r.putObject("error").put("code", code).put("message", message);
            return r;
        });
    }

    /** Answers with {@code answer} (null: hang up). */
    static FakeDaemon with(Path socket, Function<JsonNode, JsonNode> answer) throws IOException {
        return new FakeDaemon(socket, answer);
    }

    static ObjectNode response(JsonNode request) {
        ObjectNode r = JSON.createObjectNode().put("jsonrpc", "2.0");
        r.set("id", request.get("id"));
        return r;
    }

    private void serve() {
        while (server.isOpen()) {
            try (SocketChannel client = server.accept();
                    BufferedReader in = new BufferedReader(
                            new InputStreamReader(Channels.newInputStream(client), StandardCharsets.UTF_8));
                    PrintWriter out = new PrintWriter(Channels.newOutputStream(client), true, StandardCharsets.UTF_8)) {
                String line;
                while ((line = in.readLine()) != null) {
                    JsonNode request = JSON.readTree(line);
                    requests.add(request);
                    JsonNode response = answer.apply(request);
                    if (response == null) {
                        break;
                    }
                    out.println(JSON.writeValueAsString(response));
                }
            } catch (IOException e) {
                // closed: the test is over, or the client went away
            }
        }
    }

    /** The CLI with {@code --socket} this and {@code args}. */
    Run cli(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--socket";
        all[1] = socket.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return run(all);
    }

    /** The CLI in this process with exactly {@code args}. */
    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = AdminCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Override
    public void close() throws IOException {
        server.close();
        Files.deleteIfExists(socket);
    }
}
