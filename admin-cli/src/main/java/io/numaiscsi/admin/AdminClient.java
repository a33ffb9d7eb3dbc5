package io.numaiscsi.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** One connection to a daemon's admin socket: a JSON-RPC 2.0 request line out, its response line back. */
final class AdminClient implements AutoCloseable {
    /** Responses (a long session list) may be larger than requests, but not without bound. */
    static final int MAX_RESPONSE_BYTES = 16 << 20;

    /** The daemon answered with a JSON-RPC error; its message names what was wrong. */
    static final class Refused extends Exception {
        final int code;

        Refused(int code, String message) {
            super(message);
            this.code = code;
        }
    }

    private final SocketChannel channel;
    private final ObjectMapper json = new ObjectMapper();
    private final ByteBuffer in = ByteBuffer.allocate(8192).flip();
    private int nextId = 1;

    private AdminClient(SocketChannel channel) {
        this.channel = channel;
    }

    /** Connects to {@code socket}; an IOException here means no daemon listens there (or this user may not talk to it). */
    static AdminClient connect(Path socket) throws IOException {
        return new AdminClient(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
    }

    /** Calls {@code method}; returns its result or throws the daemon's error. */
    JsonNode call(String method, ObjectNode params) throws IOException, Refused {
        ObjectNode request = json.createObjectNode().put("jsonrpc", "2.0").put("method", method);
        request.set("params", params);
        request.put("id", nextId++);
        ByteBuffer out = ByteBuffer.wrap((json.writeValueAsString(request) + "\n").getBytes(StandardCharsets.UTF_8));
        while (out.hasRemaining()) {
            channel.write(out);
        }
        JsonNode response;
        try {
            response = json.readTree(readLine());
        } catch (JsonProcessingException e) {
            throw new IOException("its answer is not JSON", e);
        }
        JsonNode error = response.get("error");
        if (error != null) {
            throw new Refused(error.path("code").asInt(), error.path("message").asText());
        }
        JsonNode result = response.get("result");
        if (result == null) {
            throw new IOException("the answer has neither a result nor an error");
        }
        return result;
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            while (in.hasRemaining()) {
                byte b = in.get();
                if (b == '\n') {
                    return line.toString(StandardCharsets.UTF_8);
                }
                if (line.size() == MAX_RESPONSE_BYTES) {
                    throw new IOException("its answer is longer than " + MAX_RESPONSE_BYTES + " bytes");
                }
                line.write(b);
            }
            in.clear();
            int n = channel.read(in);
            in.flip();
            if (n < 0) {
                throw new IOException("it closed the connection without an answer");
            }
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
