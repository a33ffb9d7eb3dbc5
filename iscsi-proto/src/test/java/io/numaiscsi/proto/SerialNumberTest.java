package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SerialNumberTest {
    // a, b, a<b, a>b
    private static final Object[][] CASES = {
        {0, 0, false, false},
        {0, 1, true, false},
        {1, 0, false, true},
        {0xffffffff, 0, true, false}, // wrap: 2^32-1 precedes 0
        {0, 0xffffffff, false, true},
        {0xfffffff0, 0x10, true, false},
        {0x7fffffff, 0x80000000, true, false},
        {0x80000000, 0x7fffffff, false, true},
        {0, 0x7fffffff, true, false}, // 2^31 - 1 apart: still ordered
        {0, 0x80000000, false, false}, // exactly 2^31 apart: undefined, neither
        {0x80000000, 0, false, false},
        {5, 0x80000006, false, true}, // more than 2^31 ahead wraps around
    };

    @Test
    void lessAndGreater() {
        for (Object[] c : CASES) {
            int a = (Integer) c[0];
            int b = (Integer) c[1];
            String what = Integer.toHexString(a) + " vs " + Integer.toHexString(b);
            assertEquals(c[2], SerialNumber.lessThan(a, b), "lessThan " + what);
            assertEquals(c[3], SerialNumber.greaterThan(a, b), "greaterThan " + what);
            assertEquals(a == b || (Boolean) c[2], SerialNumber.lessOrEqual(a, b), "lessOrEqual " + what);
            assertEquals(a == b || (Boolean) c[3], SerialNumber.greaterOrEqual(a, b), "greaterOrEqual " + what);
        }
    }

    @Test
    void window() {
        // sn, exp, max, expected
        int[][] cases = {
            {10, 10, 10, 1},
            {9, 10, 10, 0},
            {11, 10, 10, 0},
            {10, 10, 9, 0}, // closed window (max = exp - 1)
            {0, 0xfffffffe, 2, 1}, // window spanning the wrap
            {0xffffffff, 0xfffffffe, 2, 1},
            {3, 0xfffffffe, 2, 0},
            {0xfffffffd, 0xfffffffe, 2, 0},
        };
        for (int[] c : cases) {
            assertEquals(c[3] == 1, SerialNumber.inWindow(c[0], c[1], c[2]), Arrays.toString(c));
        }
    }
}
