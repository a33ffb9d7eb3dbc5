package io.numaiscsi.daemon.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON-RPC 2.0 framing of the admin socket: errors for what is not a request, limits, the socket file. */
class AdminSocketTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** Methods over no daemon: enough for every request refused before a method runs. */
    private static AdminMethods noDaemon() {
        return new AdminMethods(null, null);
    }

    @Test
    void whatIsNotARequestGetsTheJsonRpcErrorCode() throws Exception {
        try (AdminSocket s = AdminSocket.open(dir.resolve("a.sock"), noDaemon())) {
            assertEquals(
                    AdminError.PARSE_ERROR,
                    s.handle("{not json").path("error").path("code").asInt());
            assertEquals(
                    AdminError.INVALID_REQUEST,
                    s.handle("{\"method\": \"target.list\", \"id\": 1}")
                            .path("error")
                            .path("code")
                            .asInt(),
                    "no jsonrpc 2.0");
            assertEquals(
                    AdminError.INVALID_PARAMS,
                    s.handle("{\"jsonrpc\": \"2.0\", \"method\": \"lun.add\", \"params\": [1], \"id\": 2}")
                            .path("error")
                            .path("code")
                            .asInt(),
                    "params not an object");
            JsonNode unknown = s.handle("{\"jsonrpc\": \"2.0\", \"method\": \"lun.explode\", \"id\": 3}");
            assertEquals(
                    AdminError.METHOD_NOT_FOUND,
                    unknown.path("error").path("code").asInt());
            assertTrue(unknown.path("error").path("message").asText().contains("lun.add"), "lists the methods");
            assertEquals(3, unknown.path("id").asInt(), "the request's id comes back");
            JsonNode missing =
                    s.handle("{\"jsonrpc\": \"2.0\", \"method\": \"lun.remove\", \"params\": {}, \"id\": 4}");
            assertEquals(
                    "params.target is required (a string)",
                    missing.path("error").path("message").asText());
            assertNull(
                    s.handle("{\"jsonrpc\": \"2.0\", \"method\": \"lun.explode\"}"), "a notification gets no answer");
        }
    }

    @Test
    void theSocketIsTheOwnersOnlyAndAnOversizedRequestClosesTheConnection() throws Exception {
        Path at = dir.resolve("b.sock");
        try (AdminSocket s = AdminSocket.open(at, noDaemon());
                SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(at))) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(at)));
            ByteBuffer big = ByteBuffer.allocate(AdminSocket.MAX_REQUEST_BYTES + 10);
            while (big.hasRemaining()) {
                big.put((byte) 'x');
            }
            big.flip();
            while (big.hasRemaining()) {
                c.write(big);
            }
            JsonNode answer = JSON.readTree(readAll(c));
            assertEquals(
                    AdminError.INVALID_REQUEST,
                    answer.path("error").path("code").asInt(),
                    answer.toString());
        }
        assertTrue(Files.notExists(at), "close removes the socket file");
    }

    @Test
    void aStaleSocketIsReplacedALiveOneOrAPlainFileIsNot() throws Exception {
        Path at = dir.resolve("c.sock");
        try (AdminSocket first = AdminSocket.open(at, noDaemon())) {
            IOException e = assertThrows(IOException.class, () -> AdminSocket.open(at, noDaemon()));
            assertTrue(e.getMessage().contains("in use by another running daemon"), e.getMessage());
        }
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(at)); // a daemon killed with -9 leaves its socket file behind
        }
        assertTrue(Files.exists(at));
        try (AdminSocket replaced = AdminSocket.open(at, noDaemon());
                SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(at))) {
            assertTrue(c.isConnected(), "the stale socket was replaced by a live one");
        }
        Files.writeString(dir.resolve("plain"), "x");
        IOException e = assertThrows(IOException.class, () -> AdminSocket.open(dir.resolve("plain"), noDaemon()));
        assertTrue(e.getMessage().contains("is not a socket"), e.getMessage());
        Path longPath = dir.resolve("d".repeat(120) + ".sock");
        assertThrows(AdminSocket.PathTooLongException.class, () -> AdminSocket.open(longPath, noDaemon()));
    }

    private static String readAll(SocketChannel c) throws IOException {
        StringBuilder sb = new StringBuilder();
        ByteBuffer in = ByteBuffer.allocate(4096);
        while (c.read(in.clear()) > 0) {
            sb.append(StandardCharsets.UTF_8.decode(in.flip()));
        }
        return sb.toString().strip();
    }
}
