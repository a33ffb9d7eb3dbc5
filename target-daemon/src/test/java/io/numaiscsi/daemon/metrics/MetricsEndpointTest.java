package io.numaiscsi.daemon.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MetricsEndpointTest {
    /** How long any answer or close may take: generous, the tests check that one comes, not how fast. */
    private static final Duration ANSWER = Duration.ofSeconds(5);

    private static final String TEXT = "# HELP fake_total a fake counter\n# TYPE fake_total counter\nfake_total 42.0\n";
    private static final String HALF_REQUEST = "GET /metr";

    private final List<Socket> sockets = new ArrayList<>();
    private MetricsEndpoint endpoint;

    private int start(MetricsLimits limits) throws IOException {
        return start(limits, () -> TEXT);
    }

    private int start(MetricsLimits limits, Supplier<String> scrape) throws IOException {
        endpoint = new MetricsEndpoint("127.0.0.1", 0, scrape, limits);
        return endpoint.port();
    }

    @AfterEach
    void closeLeavesNoThread() throws Exception {
        for (Socket s : sockets) {
            s.close();
        }
        if (endpoint != null) {
            endpoint.close();
        }
        long deadline = System.nanoTime() + ANSWER.toNanos();
        while (endpointThreads() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, endpointThreads(), "threads named " + MetricsEndpoint.THREAD_NAME + " after close");
    }

    @Test
    void getReturnsThePrometheusTextAndHeadItsHeaders() throws Exception {
        int port = start(MetricsLimits.DEFAULT);
        HttpResponse<String> r = scrape(port);
        assertEquals(200, r.statusCode());
        assertEquals(
                "text/plain; version=0.0.4; charset=utf-8",
                r.headers().firstValue("content-type").orElse(""));
        assertEquals(TEXT, r.body());
        // a query string is not part of the path
        assertEquals(TEXT, send(port, request("GET", "/metrics?name[]=x")).body());

        Reply head = send(port, request("HEAD", "/metrics"));
        assertEquals(200, head.status(), head.head());
        assertEquals(Integer.toString(TEXT.getBytes(StandardCharsets.UTF_8).length), head.header("content-length"));
        assertEquals("", head.body());
    }

    @Test
    void otherPathsAre404AndOtherMethods405() throws Exception {
        int port = start(MetricsLimits.DEFAULT);
        assertEquals(404, send(port, request("GET", "/")).status());
        assertEquals(404, send(port, request("GET", "/metrics/x")).status());
        Reply post = send(port, request("POST", "/metrics"));
        assertEquals(405, post.status(), post.head());
        assertEquals("GET, HEAD", post.header("allow"));
        assertEquals(405, send(port, request("DELETE", "/metrics")).status());
    }

    @Test
    void withTheStatusPageRootIsThePageAndStatusJsonItsDataAndItSamplesEverySecond() throws Exception {
        CountDownLatch sampled = new CountDownLatch(2);
        Map<String, HttpResource> page = Map.of(
                StatusPage.PAGE_PATH,
                        HttpResource.fixed("text/html; charset=utf-8", "<html>".getBytes(StandardCharsets.UTF_8)),
                StatusPage.JSON_PATH, HttpResource.text("application/json", () -> "{}"));
        Map<String, HttpResource> all = new HashMap<>(page);
        all.put("/metrics", HttpResource.text(MetricsHttpHandler.CONTENT_TYPE, () -> TEXT));
        endpoint = new MetricsEndpoint("127.0.0.1", 0, all, sampled::countDown, MetricsLimits.DEFAULT);
        int port = endpoint.port();
        Reply root = send(port, request("GET", "/"));
        assertEquals(200, root.status(), root.head());
        assertEquals("text/html; charset=utf-8", root.header("content-type"));
        assertEquals("<html>", root.body());
        Reply json = send(port, request("GET", "/status.json?t=1"));
        assertEquals("application/json", json.header("content-type"));
        assertEquals("{}", json.body());
        assertEquals(TEXT, scrape(port).body(), "/metrics as without the page");
        assertEquals(405, send(port, request("POST", "/status.json")).status());
        assertTrue(sampled.await(ANSWER.toSeconds(), TimeUnit.SECONDS), "sampled twice");
    }

    @Test
    void theStatusPageIsInTheJarAndNeedsNothingFromOutside() throws Exception {
        byte[] html;
        try (InputStream in = StatusPage.class.getResourceAsStream("status.html")) {
            html = in.readAllBytes();
        }
        String page = new String(html, StandardCharsets.UTF_8);
        assertTrue(page.contains("fetch(\"/status.json\""), "polls the JSON");
        assertTrue(page.contains("data-points"), "tells a test how many points it drew");
        assertTrue(
                !page.contains("http://") && !page.contains("https://") && !page.contains("src="),
                "no script, style or font from elsewhere: the machine may be offline");
    }

    @Test
    void stalledClientsDoNotDelayAFreshScrape() throws Exception {
        int port = start(MetricsLimits.DEFAULT);
        for (int i = 0; i < 20; i++) {
            stalled(port);
        }
        HttpResponse<String> r = scrape(port);
        assertEquals(200, r.statusCode());
        assertEquals(TEXT, r.body());
    }

    @Test
    void aStalledRequestIsClosedAfterTheRequestTimeout() throws Exception {
        int port = start(new MetricsLimits(Duration.ofMillis(300), Duration.ofSeconds(30), 64, 8192));
        long began = System.nanoTime();
        Socket s = stalled(port);
        assertEquals(-1, s.getInputStream().read(), "closed without an answer");
        long millis = (System.nanoTime() - began) / 1_000_000;
        assertTrue(millis >= 250, "closed after " + millis + " ms, before the 300 ms request timeout");

        Socket silent = connect(port);
        assertEquals(-1, silent.getInputStream().read(), "a connection that never sends is closed too");
    }

    @Test
    void tricklingARequestDoesNotExtendTheDeadline() throws Exception {
        int port = start(new MetricsLimits(Duration.ofMillis(300), Duration.ofSeconds(30), 64, 8192));
        Socket s = connect(port);
        s.setSoTimeout(50);
        long deadline = System.nanoTime() + ANSWER.toNanos();
        byte[] line = "GET /metrics HTTP/1.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; System.nanoTime() < deadline; i++) {
            try {
                s.getOutputStream().write(line[Math.min(i, line.length - 1)]);
                if (s.getInputStream().read() == -1) {
                    return;
                }
                fail("an answer to half a request");
            } catch (SocketTimeoutException stillOpen) {
                // one more byte
            } catch (IOException reset) {
                return;
            }
        }
        fail("a client sending a byte every 50 ms was not closed within " + ANSWER.toSeconds() + " s");
    }

    @Test
    void anIdleKeptAliveConnectionIsClosed() throws Exception {
        int port = start(new MetricsLimits(Duration.ofSeconds(30), Duration.ofMillis(300), 64, 8192));
        Socket s = connect(port);
        s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        InputStream in = s.getInputStream();
        String head = readHead(in);
        assertTrue(head.startsWith("HTTP/1.1 200"), head);
        assertEquals(TEXT, new String(in.readNBytes(TEXT.length()), StandardCharsets.UTF_8));
        s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertTrue(readHead(in).startsWith("HTTP/1.1 200"), "the connection is kept alive");
        in.readNBytes(TEXT.length());
        assertEquals(-1, in.read(), "closed after idling");
    }

    @Test
    void connectionsOverTheCapAreClosedAtOnceAndServiceResumes() throws Exception {
        int cap = 4;
        int port = start(new MetricsLimits(Duration.ofSeconds(30), Duration.ofSeconds(30), cap, 8192));
        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < cap; i++) {
            held.add(stalled(port));
        }
        // the timeouts are 30 s: a close within ANSWER is the cap's doing
        assertEquals(-1, connect(port).getInputStream().read(), "connection over the cap closed");
        assertEquals(-1, send(port, request("GET", "/metrics")).status(), "no answer while the cap is reached");
        for (Socket s : held) {
            s.setSoTimeout(50);
            assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read(), "held ones stay open");
            s.close();
        }
        long deadline = System.nanoTime() + ANSWER.toNanos();
        Reply r = send(port, request("GET", "/metrics"));
        while (r.status() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(20);
            r = send(port, request("GET", "/metrics"));
        }
        assertEquals(200, r.status(), "served again once the held connections went");
        assertEquals(TEXT, r.body());
    }

    @Test
    void oversizedRequestsGetAnAnswerOrACloseNotAHang() throws Exception {
        int port = start(MetricsLimits.DEFAULT);
        String big = "x".repeat(20_000);
        assertAnsweredOrClosed(431, send(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + big + "\r\n\r\n"));
        assertAnsweredOrClosed(414, send(port, "GET /metrics?" + big + " HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertAnsweredOrClosed(
                413,
                send(
                        port,
                        "POST /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + "Content-Length: 1048576\r\n\r\n"
                                + big));
        assertAnsweredOrClosed(400, send(port, "\u0001\u0002 nonsense\r\n\r\n"));
        assertEquals(200, scrape(port).statusCode(), "still serving");
    }

    @Test
    void aClientThatDoesNotReadCannotPileUpAnswers() throws Exception {
        String big = "x".repeat(1 << 20);
        int requests = 64;
        int port = start(MetricsLimits.DEFAULT, () -> big);
        Socket s = connect(port);
        s.getOutputStream()
                .write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
                        .repeat(requests)
                        .getBytes(StandardCharsets.US_ASCII));
        Thread.sleep(500); // not reading meanwhile: the answers back up
        long received = 0;
        try {
            received = s.getInputStream().transferTo(OutputStream.nullOutputStream());
        } catch (SocketTimeoutException e) {
            fail("all " + requests + " pipelined requests answered and the connection kept open");
        } catch (IOException reset) {
            // closed: what matters
        }
        assertTrue(received < (long) requests * big.length(), received + " bytes received");
        assertEquals(200, scrape(port).statusCode(), "still serving");
    }

    @Test
    void aBindFailureNamesTheAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            IOException e = assertThrows(
                    IOException.class, () -> new MetricsEndpoint("127.0.0.1", port, () -> TEXT, MetricsLimits.DEFAULT));
            assertEquals("metrics address 127.0.0.1:" + port + " is in use", e.getMessage());
        }
    }

    private static void assertAnsweredOrClosed(int status, Reply r) {
        assertTrue(r.status() == status || r.status() == -1, "expected " + status + " or a close, got " + r.head());
    }

    private static HttpResponse<String> scrape(int port) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                .timeout(ANSWER)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private Socket connect(int port) throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.connect(new InetSocketAddress("127.0.0.1", port), (int) ANSWER.toMillis());
        s.setSoTimeout((int) ANSWER.toMillis());
        return s;
    }

    /** A client that sent half a request line and nothing more. */
    private Socket stalled(int port) throws IOException {
        Socket s = connect(port);
        s.getOutputStream().write(HALF_REQUEST.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }

    private static String request(String method, String target) {
        return method + " " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    }

    /** Sends raw bytes and reads until the server closes; status -1 if it closed (or reset) without an answer. */
    private Reply send(int port, String raw) throws IOException {
        Socket s = connect(port);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try {
            s.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
            s.getInputStream().transferTo(got);
        } catch (SocketTimeoutException e) {
            fail("neither an answer nor a close within " + ANSWER.toSeconds() + " s; got: " + got);
        } catch (IOException reset) {
            // a close with unread request bytes is a reset: what came before it still counts
        }
        return Reply.parse(got.toString(StandardCharsets.ISO_8859_1));
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.length() < 4 || !head.substring(head.length() - 4).equals("\r\n\r\n")) {
            int b = in.read();
            if (b == -1) {
                fail("closed in the middle of a response head: " + head);
            }
            head.append((char) b);
        }
        return head.toString();
    }

    private static long endpointThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(MetricsEndpoint.THREAD_NAME))
                .count();
    }

    private record Reply(int status, String head, String body) {
        private static final Pattern STATUS = Pattern.compile("^HTTP/1\\.[01] (\\d{3}) ");

        static Reply parse(String raw) {
            int end = raw.indexOf("\r\n\r\n");
            if (end < 0) {
                return new Reply(-1, raw, "");
            }
            Matcher m = STATUS.matcher(raw);
            return new Reply(
                    m.find() ? Integer.parseInt(m.group(1)) : -1, raw.substring(0, end), raw.substring(end + 4));
        }

        String header(String name) {
            Matcher m = Pattern.compile("^" + name + ": *(.*)$", Pattern.CASE_INSENSITIVE | Pattern.MULTILINE)
                    .matcher(head);
            return m.find() ? m.group(1).strip() : null;
        }
    }
}
