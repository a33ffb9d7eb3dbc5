package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class OpcodeTest {
    @Test
    void lookupCoversEveryCodeOnce() {
        int known = 0;
        for (int code = 0; code < 64; code++) {
            Opcode op = Opcode.of(code);
            if (op != null) {
                known++;
                assertEquals(code, op.code());
                assertEquals(code < 0x20, op.fromInitiator());
            }
        }
        assertEquals(Opcode.values().length, known);
    }

    @Test
    void reservedAndOutOfRange() {
        assertNull(Opcode.of(0x07));
        assertNull(Opcode.of(0x1c));
        assertNull(Opcode.of(0x27));
        assertNull(Opcode.of(0x3c));
        assertNull(Opcode.of(-1));
        assertNull(Opcode.of(64));
        assertSame(Opcode.REJECT, Opcode.of(0x3f));
        assertSame(Opcode.SNACK_REQUEST, Opcode.of(0x10));
        assertSame(Opcode.R2T, Opcode.of(0x31));
    }
}
