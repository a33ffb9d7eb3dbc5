package io.numaiscsi.daemon.events;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.numaiscsi.config.DaemonSettings;
import java.util.Locale;

/**
 * How the event threads wait for and move socket bytes ({@code daemon.tcp-transport}): Netty's native epoll loop,
 * its io_uring loop (reads and writes submitted to a ring per thread), or the JDK's NIO selector where neither
 * native library loads. Every event loop group of the daemon uses the same one, so a connection can move from the
 * login thread to its LUN's thread.
 */
public enum NettyTransport {
    EPOLL,
    IO_URING,
    NIO;

    /** As written in the configuration ({@code daemon.tcp-transport}) and the log. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The transport {@code daemon.tcp-transport} names. */
    public static NettyTransport of(DaemonSettings.TcpTransport configured) {
        return switch (configured) {
            case EPOLL -> EPOLL;
            case IO_URING -> IO_URING;
            case NIO -> NIO;
        };
    }

    /** Why this transport cannot run here, or null when it can. */
    public String unavailableReason() {
        Throwable cause = switch (this) {
            case EPOLL -> Epoll.isAvailable() ? null : Epoll.unavailabilityCause();
            case IO_URING -> IoUring.isAvailable() ? null : IoUring.unavailabilityCause();
            case NIO -> null;
        };
        return cause == null ? null : String.valueOf(cause.getMessage() != null ? cause.getMessage() : cause);
    }

    /**
     * {@code spinNanos} or {@code ioPollNanos} > 0: epoll threads poll for events that long, and for their I/O's
     * completions this long, before they block ({@link SpinThenBlockStrategy}).
     */
    IoHandlerFactory ioHandlerFactory(long spinNanos, long ioPollNanos) {
        return switch (this) {
            case EPOLL ->
                spinNanos > 0 || ioPollNanos > 0
                        ? EpollIoHandler.newFactory(0, () -> new SpinThenBlockStrategy(spinNanos, ioPollNanos))
                        : EpollIoHandler.newFactory();
            case IO_URING -> IoUringIoHandler.newFactory();
            case NIO -> NioIoHandler.newFactory();
        };
    }

    public Class<? extends ServerChannel> serverChannelClass() {
        return switch (this) {
            case EPOLL -> EpollServerSocketChannel.class;
            case IO_URING -> IoUringServerSocketChannel.class;
            case NIO -> NioServerSocketChannel.class;
        };
    }
}
