package io.numaiscsi.daemon;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import jnr.ffi.LibraryLoader;
import jnr.ffi.annotations.SaveError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * sd_notify(3) without libsystemd: each state change is one AF_UNIX datagram to {@code $NOTIFY_SOCKET}, which systemd
 * sets for a {@code Type=notify} service. Does nothing when the variable is unset (not started by systemd). Java's
 * channels have no Unix datagram sockets, so the three libc calls go through jnr-ffi.
 */
public final class SystemdNotifier {
    private static final Logger LOG = LoggerFactory.getLogger(SystemdNotifier.class);
    static final int AF_UNIX = 1;
    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int MSG_NOSIGNAL = 0x4000;
    /** sizeof(sockaddr_un.sun_path) on Linux. */
    private static final int SUN_PATH = 108;

    /** The libc calls a datagram needs. Public only because jnr-ffi generates the implementation elsewhere. */
    public interface Libc {
        @SaveError
        int socket(int domain, int type, int protocol);

        @SaveError
        long sendto(int fd, byte[] buffer, long length, int flags, byte[] address, int addressLength);

        int close(int fd);
    }

    private final String socketName;
    private final byte[] address;
    private final Libc libc;

    private SystemdNotifier(String socketName, byte[] address, Libc libc) {
        this.socketName = socketName;
        this.address = address;
        this.libc = libc;
    }

    /** For {@code $NOTIFY_SOCKET} of this process. */
    public static SystemdNotifier fromEnvironment() {
        return forSocket(System.getenv("NOTIFY_SOCKET"));
    }

    /** For {@code notifySocket} (a path, or {@code @name} in the abstract namespace); null or empty: a no-op. */
    static SystemdNotifier forSocket(String notifySocket) {
        if (notifySocket == null || notifySocket.isEmpty()) {
            return new SystemdNotifier(null, null, null);
        }
        byte[] address = sockaddr(notifySocket);
        if (address == null) {
            LOG.warn(
                    "NOTIFY_SOCKET {} is not a Unix socket address; systemd is not told the daemon's state",
                    notifySocket);
            return new SystemdNotifier(null, null, null);
        }
        try {
            return new SystemdNotifier(
                    notifySocket, address, LibraryLoader.create(Libc.class).load("c"));
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("libc not loadable through jnr-ffi ({}); systemd is not told the daemon's state", e.toString());
            return new SystemdNotifier(null, null, null);
        }
    }

    /**
     * A {@code struct sockaddr_un} as long as it is used: family, then the path with its NUL, or for {@code @name} a
     * NUL and the name without one. Null when the name does not fit.
     */
    static byte[] sockaddr(String notifySocket) {
        boolean abstractName = notifySocket.charAt(0) == '@';
        byte[] name = (abstractName ? notifySocket.substring(1) : notifySocket).getBytes(StandardCharsets.UTF_8);
        if ((!abstractName && notifySocket.charAt(0) != '/') || name.length + 1 > SUN_PATH) {
            return null;
        }
        ByteBuffer b = ByteBuffer.allocate(2 + 1 + name.length).order(ByteOrder.nativeOrder());
        b.putShort((short) AF_UNIX);
        if (abstractName) {
            b.put((byte) 0).put(name);
        } else {
            b.put(name).put((byte) 0);
        }
        return b.array();
    }

    /** Every portal listens: systemd starts what is ordered after the service. */
    public void ready() {
        send("READY=1\nSTATUS=serving");
    }

    /** A SIGHUP reload begins; {@link #ready()} ends it. */
    public void reloading() {
        send("RELOADING=1\nSTATUS=reloading the configuration");
    }

    /** SIGTERM: logging sessions out and flushing. */
    public void stopping() {
        send("STOPPING=1\nSTATUS=logging sessions out, flushing");
    }

    /** Sends {@code state} (newline-separated assignments); false when there is nowhere to send or it failed. */
    boolean send(String state) {
        if (libc == null) {
            return false;
        }
        byte[] message = state.getBytes(StandardCharsets.UTF_8);
        int fd = libc.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            LOG.warn("sd_notify {}: socket() failed, errno {}", socketName, errno());
            return false;
        }
        try {
            if (libc.sendto(fd, message, message.length, MSG_NOSIGNAL, address, address.length) != message.length) {
                LOG.warn("sd_notify {}: sending {} failed, errno {}", socketName, state.replace('\n', ' '), errno());
                return false;
            }
            return true;
        } finally {
            libc.close(fd);
        }
    }

    private int errno() {
        return jnr.ffi.Runtime.getRuntime(libc).getLastError();
    }
}
