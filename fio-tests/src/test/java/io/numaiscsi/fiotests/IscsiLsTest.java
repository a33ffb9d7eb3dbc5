package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IscsiLsTest {

    @ParameterizedTest
    @CsvSource({
        // bytes, block size, column; 1 GiB -> 1023M is what iscsi-ls printed for tgtd's 1 GiB LUN
        "1073741824, 512, Size:1023M",
        "67108864, 512, Size:63M",
        "1073741824, 4096, Size:1023M",
        "1048576, 512, Size:1023k",
        "4096, 512, Size:3k",
        "2199023255552, 512, Size:1T",
    })
    void sizeColumn(long bytes, int blockSize, String expected) {
        assertEquals(expected, IscsiLs.sizeColumn(bytes, blockSize));
    }

    @Test
    void lunLinePadsTheLunNumber() {
        assertEquals("Lun:0    Type:DIRECT_ACCESS (Size:1023M)", IscsiLs.diskLunLine(0, 1L << 30, 512));
    }
}
