package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

class LoginAdmissionTest {
    private static final InetAddress FLOODER = address("127.0.0.2");
    private static final InetAddress HONEST = address("127.0.0.1");

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void oneAddressCannotTakeEverySlot() {
        LoginAdmission logins = new LoginAdmission(10, 4);
        for (int i = 0; i < 4; i++) {
            assertNull(logins.enter(FLOODER));
        }
        String refusal = logins.enter(FLOODER);
        assertNotNull(refusal);
        assertTrue(refusal.contains("limits.logins-per-address 4"), refusal);
        assertNull(logins.enter(HONEST), "another address still gets in");
        assertEquals(5, logins.inLogin());
    }

    @Test
    void daemonWideCapAndSlotsComeBack() {
        LoginAdmission logins = new LoginAdmission(3, 2);
        assertNull(logins.enter(FLOODER));
        assertNull(logins.enter(FLOODER));
        assertNull(logins.enter(HONEST));
        String refusal = logins.enter(null);
        assertTrue(refusal.contains("limits.max-logins 3"), refusal);
        logins.leave(FLOODER);
        assertNull(logins.enter(null), "unknown addresses count as one address");
        logins.leave(FLOODER);
        logins.leave(HONEST);
        logins.leave(null);
        assertEquals(0, logins.inLogin());
        assertEquals(0, logins.inLogin(FLOODER));
    }

    @Test
    void leavingWithoutEnteringIsABug() {
        assertThrows(IllegalStateException.class, () -> new LoginAdmission(1, 1).leave(HONEST));
    }
}
