package io.numaiscsi.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.PduDecoder;
import io.numaiscsi.proto.PduEncoder;
import io.numaiscsi.proto.transport.ConnectionExecutor;
import io.numaiscsi.proto.transport.DataInTask;
import io.numaiscsi.proto.transport.DataOutTask;
import io.numaiscsi.proto.transport.IscsiTransport;
import io.numaiscsi.proto.transport.NettyConnectionExecutor;
import io.numaiscsi.proto.transport.TransportEvents;
import io.numaiscsi.session.IscsiConnection;
import io.numaiscsi.session.PeerEventLogs;
import io.numaiscsi.session.SessionServices;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * iSCSI over TCP for one connection: frames PDUs out of the byte stream with the resumable {@link PduDecoder} and
 * hands each to the transport-neutral session layer ({@link TransportEvents}, an {@link IscsiConnection}); is its
 * {@link IscsiTransport} for the way back, framing each PDU with padding and the negotiated digests. A command's data
 * travels in iSCSI's own PDUs (R2T, Data-Out, Data-In), which the session builds. Writes are batched and flushed once
 * per read burst.
 */
final class TcpConnectionHandler extends ByteToMessageDecoder implements IscsiTransport {
    private static final Logger LOG = LoggerFactory.getLogger(TcpConnectionHandler.class);
    private static final long TICK_MILLIS = 1000;
    private static final long CLOSE_GRACE_MILLIS = 5000;

    private final SessionServices services;
    private final ByteBufAllocator alloc;
    private final PduDecoder decoder = new PduDecoder();
    private final PduEncoder encoder = new PduEncoder();
    private NettyConnectionExecutor executor;
    private ChannelHandlerContext ctx;
    private TransportEvents connection;
    private ScheduledFuture<?> ticker;
    private boolean pendingFlush;
    /**
     * Responses are flushed once per batch, not once each: while a read is being decoded, at its end
     * (channelReadComplete); otherwise (completions arriving as tasks) by one task queued behind them. Each flush
     * is a writev syscall and half of a LUN thread's time under a queue of small reads was the kernel's send path.
     */
    private boolean reading;

    private boolean flushQueued;
    /** The framed parts of a PDU go out as separate buffers (no composite per PDU; see PduEncoder.encodeTo). */
    private final PduEncoder.Parts toChannel = part -> ctx.write(part, ctx.voidPromise());

    /** One Runnable for every queued flush: nothing is allocated per write. */
    private final Runnable queuedFlush = this::runQueuedFlush;

    private boolean closing;
    /** Between deregistration from the login thread and registration on the home thread: decode nothing. */
    private boolean moving;

    TcpConnectionHandler(SessionServices services, ByteBufAllocator alloc) {
        this.services = services;
        this.alloc = alloc;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.connection = new IscsiConnection(this, services, System::nanoTime);
        startTicker();
        LOG.debug("connection from {}", remoteAddress());
        connection.onOpen();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        boolean writable = ctx.channel().isWritable();
        // A peer that does not read its responses is not read from either: its commands wait in its own socket.
        ctx.channel().config().setAutoRead(writable);
        if (writable && connection != null && !closing) {
            connection.onWritable();
        }
        super.channelWritabilityChanged(ctx);
    }

    private void startTicker() {
        ticker =
                ctx.executor().scheduleAtFixedRate(connection::onTick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (!closing && !moving) {
            Pdu pdu = decoder.decode(in, alloc);
            if (pdu == null) {
                if (decoder.failure() != null) {
                    connection.onDecodeFailure(decoder.failure(), decoder.failedBhs());
                    in.skipBytes(in.readableBytes());
                }
                return;
            }
            connection.onPdu(pdu);
        }
        if (closing) {
            in.skipBytes(in.readableBytes());
        }
        // moving: leave the bytes in the cumulation; the home thread decodes them after the move
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        reading = true;
        super.channelRead(ctx, msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        reading = false;
        super.channelReadComplete(ctx);
        flushNow();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved0(ChannelHandlerContext ctx) {
        stop();
    }

    private void stop() {
        if (connection == null) {
            return;
        }
        if (!closing) {
            if (PeerEventLogs.CONNECTION_ENDS.permit()) {
                LOG.info("connection from {} closed by the initiator", remoteAddress());
            }
            closing = true;
        }
        if (ticker != null) {
            ticker.cancel(false);
            ticker = null;
        }
        connection.onClosed();
        decoder.reset();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String reason = cause.getMessage() == null || cause.getMessage().isBlank()
                ? "an unexpected error (with --log-level debug the log says where)"
                : cause.getMessage();
        LOG.warn("dropping connection from {}: {}", remoteAddress(), reason);
        LOG.debug("dropping connection from {}", remoteAddress(), cause);
        ctx.close();
    }

    // ---- IscsiTransport -------------------------------------------------------------------------

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }

    @Override
    public ConnectionExecutor executor() {
        NettyConnectionExecutor e = executor;
        if (e == null || e.loop() != ctx.executor()) {
            e = executor = new NettyConnectionExecutor(ctx.executor()); // once per thread the connection lives on
        }
        return e;
    }

    /** Data-In PDUs with the status in the last. */
    @Override
    public void queueDataIn(DataInTask task) {
        task.sendDataInPdus();
    }

    /** R2Ts; the initiator's Data-Out PDUs come back through the decoder. */
    @Override
    public void getDataOut(DataOutTask task) {
        task.solicitWithR2ts();
    }

    /** Frames the PDU for TCP: padding, and the negotiated digests (RFC 7143 11.1). */
    @Override
    public void sendPdu(ByteBuf bhs, ByteBuf data) {
        if (closing) {
            bhs.release();
            if (data != null) {
                data.release();
            }
            return;
        }
        encoder.encodeTo(alloc, bhs, null, data, toChannel);
        pendingFlush = true;
    }

    @Override
    public void flush() {
        if (!pendingFlush || reading || flushQueued) {
            return;
        }
        flushQueued = true;
        ctx.executor().execute(queuedFlush);
    }

    private void runQueuedFlush() {
        flushQueued = false;
        flushNow();
    }

    private void flushNow() {
        if (pendingFlush) {
            pendingFlush = false;
            ctx.flush();
        }
    }

    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        // A peer that does not read would keep the flush, and so the close, pending forever. The timer goes as soon
        // as the channel closes: it holds the connection, and a storm of logouts would keep thousands for 5 s each.
        Channel ch = ctx.channel();
        ScheduledFuture<?> grace = ctx.executor().schedule(() -> ch.close(), CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
        ch.closeFuture().addListener(closed -> grace.cancel(false));
    }

    @Override
    public boolean writable() {
        return ctx.channel().isWritable();
    }

    /** A small read is copied into the socket more cheaply than its cache pieces are gathered. */
    @Override
    public boolean sendsDataInInPlace() {
        return false;
    }

    @Override
    public boolean kernelCopiesData() {
        return true;
    }

    @Override
    public void handOff(Executor destination) {
        if (!(destination instanceof EventLoop home) || home == ctx.channel().eventLoop() || closing) {
            return;
        }
        moving = true;
        flushNow();
        if (ticker != null) {
            ticker.cancel(false);
            ticker = null;
        }
        Channel ch = ctx.channel();
        ch.deregister().addListener(deregistered -> {
            if (!deregistered.isSuccess()) {
                LOG.warn(
                        "dropping connection from {}: cannot leave the login thread: {}",
                        remoteAddress(),
                        deregistered.cause().toString());
                ch.close();
                return;
            }
            home.register(ch).addListener(registered -> {
                if (!registered.isSuccess()) {
                    LOG.warn(
                            "dropping connection from {}: cannot move to its target's thread: {}",
                            remoteAddress(),
                            registered.cause().toString());
                    ch.close();
                    return;
                }
                moving = false;
                startTicker();
                // Bytes that arrived with the last login PDU wait in the cumulation: decode them here.
                ctx.pipeline().fireChannelRead(Unpooled.EMPTY_BUFFER);
                ctx.pipeline().fireChannelReadComplete();
            });
        });
    }

    @Override
    public void negotiated(int maxRecvDataSegmentLength, boolean headerDigest, boolean dataDigest) {
        decoder.maxRecvDataSegmentLength(maxRecvDataSegmentLength);
        decoder.digests(headerDigest, dataDigest);
        encoder.digests(headerDigest, dataDigest);
    }

    @Override
    public String remoteAddress() {
        return format(ctx.channel().remoteAddress());
    }

    @Override
    public String localAddress() {
        return format(ctx.channel().localAddress());
    }

    private static String format(SocketAddress a) {
        if (a instanceof InetSocketAddress inet) {
            String host = inet.getAddress() == null
                    ? inet.getHostString()
                    : inet.getAddress().getHostAddress();
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        return String.valueOf(a);
    }
}
