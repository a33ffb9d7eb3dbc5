package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Failures in the words a user sees: no class names, the first useful message of the chain. */
class ReasonsTest {

    @Test
    void aWrappedExceptionLosesTheClassNamesItsToStringPutInFront() {
        IOException cause = new IOException("RBD image rbd/vol0 does not exist (create it with rbd create)");
        assertEquals(
                "RBD image rbd/vol0 does not exist (create it with rbd create)",
                Reasons.of(new IllegalStateException(cause)));
        assertEquals(
                "RBD image rbd/vol0 does not exist (create it with rbd create)",
                Reasons.of(new ExecutionException(new RuntimeException(cause))));
    }

    @Test
    void fileFailuresSayWhatTheSystemSaid() {
        assertEquals("no such file or directory", Reasons.of(new NoSuchFileException("/proc/.x.tmp")));
        assertEquals("permission denied", Reasons.of(new IOException(new AccessDeniedException("/etc/x"))));
        assertEquals(
                "state file x cannot be read",
                Reasons.of(new IOException("state file x cannot be read", new AccessDeniedException("/etc/x"))),
                "a message of its own comes first");
        assertEquals("read-only file system", Reasons.of(new FileSystemException("/x", null, "Read-only file system")));
    }

    @Test
    void anExceptionWithoutAMessageIsNoClassName() {
        assertEquals(
                "an unexpected error (with --log-level debug the log says where)",
                Reasons.of(new NullPointerException()));
        assertEquals(
                "address in use", Reasons.of(new RuntimeException(new IllegalArgumentException("address in use"))));
    }

    @Test
    void plainMessagesWithDotsAndColonsStayWhole() {
        assertEquals(
                "portal 127.0.0.1:3260 cannot be listened on: Address already in use",
                Reasons.of(new IOException("portal 127.0.0.1:3260 cannot be listened on: Address already in use")));
        assertEquals(
                "ceph-conf /etc/ceph/ceph.conf is missing or not readable",
                Reasons.withoutClassNames(
                        "java.io.IOException: ceph-conf /etc/ceph/ceph.conf is missing or not readable"));
    }
}
