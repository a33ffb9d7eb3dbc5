package io.numaiscsi.daemon.metrics;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection whose request is not complete {@code requestTimeout} after it began (its first byte,
 * or the connection opening), or that idles {@code idleTimeout} between a response and the next request.
 * The deadline runs from the request's start, not from the last read, so trickling bytes buys nothing.
 * Sits before the HTTP codec: a response going out (raw bytes) marks the request as done.
 */
final class RequestDeadline extends ChannelDuplexHandler {
    private final long requestNanos;
    private final long idleNanos;
    private boolean inRequest;
    private ScheduledFuture<?> deadline;

    RequestDeadline(Duration requestTimeout, Duration idleTimeout) {
        this.requestNanos = requestTimeout.toNanos();
        this.idleNanos = idleTimeout.toNanos();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        inRequest = true;
        arm(ctx, requestNanos);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!inRequest) {
            inRequest = true;
            arm(ctx, requestNanos);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (inRequest) {
            inRequest = false;
            arm(ctx, idleNanos);
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    private void arm(ChannelHandlerContext ctx, long nanos) {
        cancel();
        deadline = ctx.executor()
                .schedule(
                        () -> {
                            ctx.close();
                        },
                        nanos,
                        TimeUnit.NANOSECONDS);
    }

    private void cancel() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }
}
