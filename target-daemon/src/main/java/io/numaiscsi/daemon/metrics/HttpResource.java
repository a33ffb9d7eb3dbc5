package io.numaiscsi.daemon.metrics;

import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/** What one path of the metrics endpoint serves: a content type and the body, made afresh for each request. */
record HttpResource(String contentType, Supplier<byte[]> body) {

    /** Text made by {@code text}, sent as UTF-8. */
    static HttpResource text(String contentType, Supplier<String> text) {
        return new HttpResource(contentType, () -> text.get().getBytes(StandardCharsets.UTF_8));
    }

    /** The same bytes every time (a page from the jar). */
    static HttpResource fixed(String contentType, byte[] body) {
        return new HttpResource(contentType, () -> body);
    }
}
