package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ResidualTest {
    @ParameterizedTest(name = "command {0} bytes, EDTL {1} -> kind {2} amount {3}")
    @CsvSource({
        "512, 0, 1, 512", // WRITE of one block with EDTL 0: overflow
        "512, 10000, 2, 9488", // EDTL larger than the transfer: underflow
        "1024, 512, 1, 512",
        "512, 512, 0, 0",
        "0, 4096, 2, 4096", // no data at all (TEST UNIT READY with a buffer)
    })
    void residualFollowsRfc7143(int command, int expected, int kind, int amount) {
        assertEquals(kind, Residual.kind(command, expected));
        assertEquals(amount, Residual.amount(command, expected));
    }
}
