package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LiveObjectsTest {

    @Test
    void readsOneClassFromAHistogram() {
        String h = "3828:\n num     #instances         #bytes  class name (module)\n"
                + "-------------------------------------------------------\n"
                + "   1:         35805        3317576  [B (java.base@17.0.15)\n"
                + "   9:         11777        1978536  io.numaiscsi.session.IscsiConnection\n";
        assertEquals(11777, LiveObjects.countIn(h, "io.numaiscsi.session.IscsiConnection"));
        assertEquals(0, LiveObjects.countIn(h, "io.numaiscsi.session.CommandFlow"));
    }
}
