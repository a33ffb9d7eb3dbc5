package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The wire enums: lookup tables agree with their codes, unknown codes map to null. */
class CodesTest {
    private enum Dup {
        A,
        B
    }

    @Test
    void rejectReasons() {
        for (RejectReason r : RejectReason.values()) {
            assertSame(r, RejectReason.of(r.code()));
        }
        assertEquals(0x09, RejectReason.INVALID_PDU_FIELD.code());
        assertNull(RejectReason.of(0x01));
        assertNull(RejectReason.of(0x0b));
        assertNull(RejectReason.of(300));
    }

    @Test
    void taskManagement() {
        for (TaskManagementFunction f : TaskManagementFunction.values()) {
            assertSame(f, TaskManagementFunction.of(f.code()));
        }
        assertEquals(5, TaskManagementFunction.LOGICAL_UNIT_RESET.code());
        assertNull(TaskManagementFunction.of(0));
        assertNull(TaskManagementFunction.of(13));
        for (TmfResponse r : TmfResponse.values()) {
            assertSame(r, TmfResponse.of(r.code()));
        }
        assertEquals(255, TmfResponse.FUNCTION_REJECTED.code());
        assertNull(TmfResponse.of(8));
    }

    @Test
    void loginStatus() {
        for (LoginStatus s : LoginStatus.values()) {
            assertSame(s, LoginStatus.of(s.statusClass(), s.statusDetail()));
        }
        assertEquals(0x0201, LoginStatus.AUTHENTICATION_FAILURE.code());
        assertEquals(0x0302, LoginStatus.OUT_OF_RESOURCES.code());
        assertNull(LoginStatus.of(0x02, 0x0c));
        assertNull(LoginStatus.of(0x04, 0x00));
        assertNull(LoginStatus.of(0x100, 0));
    }

    @Test
    void duplicateCodesAreRejected() {
        assertThrows(IllegalStateException.class, () -> Codes.index(Dup.values(), 4, d -> 1));
    }
}
