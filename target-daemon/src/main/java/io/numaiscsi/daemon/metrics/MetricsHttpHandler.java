package io.numaiscsi.daemon.metrics;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers one complete request at a time: {@code GET}/{@code HEAD} of the paths it serves ({@code /metrics}, and with
 * the status page {@code /} and {@code /status.json}), 404 elsewhere, 405 for other methods.
 */
final class MetricsHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsHttpHandler.class);
    static final String PATH = "/metrics";
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final Map<String, HttpResource> resources;
    private boolean responding;

    MetricsHttpHandler(Map<String, HttpResource> resources) {
        this.resources = resources;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (responding) {
            // a pipelined request while the last answer has not left: a client that does not read could
            // otherwise pile up answers in our memory
            ctx.close();
            return;
        }
        boolean valid = request.decoderResult().isSuccess();
        FullHttpResponse response =
                valid ? answer(request) : malformed(request.decoderResult().cause());
        boolean keepAlive = valid && HttpUtil.isKeepAlive(request);
        HttpUtil.setKeepAlive(response, keepAlive);
        responding = true;
        ctx.writeAndFlush(response).addListener(f -> {
            responding = false;
            if (!keepAlive || !f.isSuccess()) {
                ctx.close();
            }
        });
    }

    private FullHttpResponse answer(FullHttpRequest request) {
        HttpVersion version = request.protocolVersion();
        String path = new QueryStringDecoder(request.uri()).path();
        HttpResource resource = resources.get(path);
        if (resource == null) {
            return text(
                    version,
                    HttpResponseStatus.NOT_FOUND,
                    "served here: " + String.join(", ", resources.keySet()) + "\n");
        }
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            FullHttpResponse r = text(version, HttpResponseStatus.METHOD_NOT_ALLOWED, "GET or HEAD only\n");
            r.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            return r;
        }
        byte[] body;
        try {
            body = resource.body().get();
        } catch (RuntimeException e) {
            LOG.warn("{} failed", path, e); // a path we serve, not whatever the client sent
            return text(version, HttpResponseStatus.INTERNAL_SERVER_ERROR, "scrape failed\n");
        }
        // HEAD: the headers a GET would get, without the body
        ByteBuf content = method.equals(HttpMethod.HEAD) ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body);
        FullHttpResponse r = new DefaultFullHttpResponse(version, HttpResponseStatus.OK, content);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, resource.contentType());
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        return r;
    }

    /** The codec could not parse the request (or it was too long); the connection closes after this answer. */
    private static FullHttpResponse malformed(Throwable cause) {
        HttpResponseStatus status = cause instanceof TooLongHttpLineException
                ? HttpResponseStatus.REQUEST_URI_TOO_LONG
                : cause instanceof TooLongHttpHeaderException
                        ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                        : HttpResponseStatus.BAD_REQUEST;
        return text(HttpVersion.HTTP_1_1, status, status.reasonPhrase() + "\n");
    }

    private static FullHttpResponse text(HttpVersion version, HttpResponseStatus status, String message) {
        byte[] body = message.getBytes(StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(version, status, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        return r;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("metrics connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
