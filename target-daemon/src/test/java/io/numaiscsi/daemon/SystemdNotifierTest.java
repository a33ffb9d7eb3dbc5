package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import jnr.ffi.LibraryLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sd_notify datagrams: addresses as systemd writes them, no-op without NOTIFY_SOCKET, and what a receiver gets. */
class SystemdNotifierTest {

    /** The receiving side of a datagram socket, as systemd has it. */
    public interface ReceiverLibc {
        int socket(int domain, int type, int protocol);

        int bind(int fd, byte[] address, int addressLength);

        long recv(int fd, byte[] buffer, long length, int flags);

        int close(int fd);
    }

    private static final int SOCK_DGRAM_NONBLOCK = 2 | 0x800;

    @Test
    void withoutNotifySocketNothingIsSent() {
        assertFalse(SystemdNotifier.forSocket(null).send("READY=1"));
        assertFalse(SystemdNotifier.forSocket("").send("READY=1"));
    }

    @Test
    void aPathAddressEndsWithNulAndAnAbstractOneStartsWithIt() {
        byte[] path = SystemdNotifier.sockaddr("/run/systemd/notify");
        assertEquals(2 + "/run/systemd/notify".length() + 1, path.length);
        assertEquals(
                SystemdNotifier.AF_UNIX,
                ByteBuffer.wrap(path).order(ByteOrder.nativeOrder()).getShort());
        assertEquals('/', path[2]);
        assertEquals(0, path[path.length - 1]);

        byte[] abstractName = SystemdNotifier.sockaddr("@/org/freedesktop/systemd1/notify/123");
        assertEquals(2 + 1 + "/org/freedesktop/systemd1/notify/123".length(), abstractName.length);
        assertEquals(0, abstractName[2]);
        assertEquals('/', abstractName[3]);
    }

    @Test
    void relativeOrTooLongNamesAreNoAddress() {
        assertNull(SystemdNotifier.sockaddr("notify"));
        assertNull(SystemdNotifier.sockaddr("/" + "x".repeat(107)));
        assertFalse(SystemdNotifier.forSocket("notify").send("READY=1"));
    }

    @Test
    void aReceiverBoundToNotifySocketGetsEachStateAsOneDatagram(@TempDir Path dir) {
        ReceiverLibc libc = LibraryLoader.create(ReceiverLibc.class).load("c");
        String path = dir.resolve("notify").toString();
        int fd = libc.socket(SystemdNotifier.AF_UNIX, SOCK_DGRAM_NONBLOCK, 0);
        assertTrue(fd >= 0, "socket");
        try {
            byte[] address = SystemdNotifier.sockaddr(path);
            assertEquals(0, libc.bind(fd, address, address.length), "bind " + path);
            SystemdNotifier notifier = SystemdNotifier.forSocket(path);
            notifier.ready();
            notifier.reloading();
            notifier.stopping();
            assertEquals("READY=1\nSTATUS=serving", receive(libc, fd));
            assertEquals("RELOADING=1\nSTATUS=reloading the configuration", receive(libc, fd));
            assertEquals("STOPPING=1\nSTATUS=logging sessions out, flushing", receive(libc, fd));
            assertEquals(-1, libc.recv(fd, new byte[16], 16, 0), "nothing more");
        } finally {
            libc.close(fd);
        }
    }

    @Test
    void anAbstractNameIsReachedToo() {
        ReceiverLibc libc = LibraryLoader.create(ReceiverLibc.class).load("c");
        String name = "@numa-iscsi-test-notify-" + ProcessHandle.current().pid();
        int fd = libc.socket(SystemdNotifier.AF_UNIX, SOCK_DGRAM_NONBLOCK, 0);
        try {
            byte[] address = SystemdNotifier.sockaddr(name);
            assertEquals(0, libc.bind(fd, address, address.length), "bind " + name);
            assertTrue(SystemdNotifier.forSocket(name).send("READY=1"));
            assertArrayEquals(
                    "READY=1".getBytes(StandardCharsets.UTF_8),
                    receive(libc, fd).getBytes(StandardCharsets.UTF_8));
        } finally {
            libc.close(fd);
        }
    }

    private static String receive(ReceiverLibc libc, int fd) {
        byte[] buffer = new byte[256];
        long n = libc.recv(fd, buffer, buffer.length, 0);
        assertTrue(n > 0, "a datagram is waiting");
        return new String(buffer, 0, (int) n, StandardCharsets.UTF_8);
    }
}
