package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaiscsi.daemon.Reasons;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API's endpoint: JSON-RPC 2.0 on a Unix domain socket that only the daemon's user may open (mode 0600, in
 * the private data directory), as SPDK's rpc socket; nothing is exposed on the network. One request per line, one
 * response line per request (none for a notification). A few clients at a time, each request at most
 * {@link #MAX_REQUEST_BYTES}: a client cannot make the daemon hold more than that per connection.
 */
public final class AdminSocket implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminSocket.class);
    /** The socket's name in the data directory unless --admin-socket says otherwise. */
    public static final String FILE_NAME = "admin.sock";

    static final int MAX_REQUEST_BYTES = 64 << 10;
    static final int MAX_CLIENTS = 4;
    /** sun_path is 108 bytes with its terminating NUL. */
    static final int MAX_PATH_BYTES = 107;

    /** The socket's path does not fit in a Unix socket address. */
    public static final class PathTooLongException extends IOException {
        PathTooLongException(String message) {
            super(message);
        }
    }

    private final Path path;
    private final ServerSocketChannel server;
    private final AdminMethods methods;
    private final ObjectMapper json = new ObjectMapper();
    private final Semaphore clients = new Semaphore(MAX_CLIENTS);
    private final AtomicInteger clientCount = new AtomicInteger();
    private final Thread acceptor;

    private AdminSocket(Path path, ServerSocketChannel server, AdminMethods methods) {
        this.path = path;
        this.server = server;
        this.methods = methods;
        this.acceptor = new Thread(this::acceptLoop, "admin-socket");
        acceptor.setDaemon(true);
    }

    /**
     * Listens at {@code path}. A socket file left by a daemon that is gone is replaced; one another daemon still
     * answers on, or a file that is not a socket, is an error naming the path.
     */
    public static AdminSocket open(Path path, AdminMethods methods) throws IOException {
        int bytes = path.toString().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_PATH_BYTES) {
            throw new PathTooLongException("admin socket path " + path + " is " + bytes + " bytes, longer than the "
                    + MAX_PATH_BYTES + " a Unix socket allows (use --admin-socket)");
        }
        removeStale(path);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(path));
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            server.close();
            throw new IOException("admin socket " + path + ": " + e.getMessage(), e);
        }
        AdminSocket s = new AdminSocket(path, server, methods);
        s.acceptor.start();
        LOG.info("admin API on {} (JSON-RPC 2.0; numa-iscsi-admin --socket {})", path, path);
        return s;
    }

    private static void removeStale(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!"socket".equals(fileType(path))) {
            throw new IOException("admin socket path " + path + " exists and is not a socket");
        }
        boolean answered;
        try {
            SocketChannel.open(UnixDomainSocketAddress.of(path)).close();
            answered = true;
        } catch (IOException refused) {
            answered = false;
        }
        if (answered) {
            throw new IOException("admin socket " + path + " is in use by another running daemon");
        }
        Files.delete(path); // left behind by a daemon that is gone
    }

    private static String fileType(Path path) throws IOException {
        Object mode = Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        return ((Integer) mode & 0170000) == 0140000 ? "socket" : "other";
    }

    public Path path() {
        return path;
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            SocketChannel client;
            try {
                client = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                LOG.warn("admin socket {}: accept failed: {}", path, e.getMessage());
                continue;
            }
            if (!clients.tryAcquire()) {
                refuseBusy(client);
                continue;
            }
            Thread t = new Thread(
                    () -> {
                        try {
                            serve(client);
                        } finally {
                            clients.release();
                        }
                    },
                    "admin-client-" + clientCount.incrementAndGet());
            t.setDaemon(true);
            t.start();
        }
    }

    private void refuseBusy(SocketChannel client) {
        try (client) {
            write(client, error(null, AdminError.FAILED, "too many admin clients (at most " + MAX_CLIENTS + ")"));
        } catch (IOException ignored) {
            // the client went away; nothing to tell it
        }
    }

    /** Reads lines until the client closes; each complete line is one request. */
    private void serve(SocketChannel client) {
        ByteBuffer in = ByteBuffer.allocate(8192);
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        try (client) {
            while (client.read(in.clear()) > 0) {
                in.flip();
                while (in.hasRemaining()) {
                    byte b = in.get();
                    if (b != '\n') {
                        if (line.size() == MAX_REQUEST_BYTES) {
                            write(
                                    client,
                                    error(
                                            null,
                                            AdminError.INVALID_REQUEST,
                                            "request longer than " + MAX_REQUEST_BYTES + " bytes"));
                            return;
                        }
                        line.write(b);
                        continue;
                    }
                    JsonNode response = handle(line.toString(StandardCharsets.UTF_8));
                    line.reset();
                    if (response != null) {
                        write(client, response);
                    }
                }
            }
        } catch (IOException e) {
            LOG.debug("admin client gone: {}", e.getMessage());
        }
    }

    /** One request line: the response, or null for a notification. */
    JsonNode handle(String text) {
        if (text.isBlank()) {
            return null;
        }
        JsonNode request;
        try {
            request = json.readTree(text);
        } catch (JsonProcessingException e) {
            return error(null, AdminError.PARSE_ERROR, "not JSON: " + e.getOriginalMessage());
        }
        JsonNode id = request.get("id");
        if (!request.isObject()
                || !"2.0".equals(request.path("jsonrpc").asText())
                || !request.path("method").isTextual()) {
            return error(
                    id,
                    AdminError.INVALID_REQUEST,
                    "a request is {\"jsonrpc\": \"2.0\", \"method\": NAME, " + "\"params\": {...}, \"id\": ID}");
        }
        JsonNode params = request.get("params");
        if (params != null && !params.isObject()) {
            return error(id, AdminError.INVALID_PARAMS, "params must be an object");
        }
        String method = request.get("method").asText();
        ObjectNode response = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
        try {
            JsonNode result = methods.call(method, params == null ? JsonNodeFactory.instance.objectNode() : params);
            response.set("result", result);
        } catch (AdminError e) {
            return id == null ? null : error(id, e.code, e.getMessage());
        } catch (RuntimeException e) {
            String reason = Reasons.of(e);
            LOG.error("admin {} failed: {}", method, reason);
            LOG.debug("admin {} failed", method, e); // the class and stack trace, for a report
            return id == null ? null : error(id, AdminError.FAILED, method + " failed: " + reason);
        }
        if (id == null) {
            return null;
        }
        response.set("id", id);
        return response;
    }

    private static ObjectNode error(JsonNode id, int code, String message) {
        ObjectNode r = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
        r.putObject("error").put("code", code).put("message", message);
        r.set("id", id == null ? JsonNodeFactory.instance.nullNode() : id);
        return r;
    }

    private void write(SocketChannel client, JsonNode response) throws IOException {
        ByteBuffer out = ByteBuffer.wrap((json.writeValueAsString(response) + "\n").getBytes(StandardCharsets.UTF_8));
        while (out.hasRemaining()) {
            client.write(out);
        }
    }

    @Override
    public void close() {
        try {
            server.close();
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.warn("admin socket {}: {}", path, e.getMessage());
        }
    }
}
