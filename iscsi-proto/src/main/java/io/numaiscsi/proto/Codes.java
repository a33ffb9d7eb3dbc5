package io.numaiscsi.proto;

import java.util.Arrays;
import java.util.function.ToIntFunction;

/** Lookup arrays for wire enums; duplicate codes are a bug caught at class initialization. */
final class Codes {
    private Codes() {}

    static <E extends Enum<E>> E[] index(E[] values, int size, ToIntFunction<E> code) {
        E[] table = Arrays.copyOf(values, size);
        Arrays.fill(table, null);
        for (E e : values) {
            int c = code.applyAsInt(e);
            if (table[c] != null) {
                throw new IllegalStateException("duplicate code " + c + ": " + table[c] + ", " + e);
            }
            table[c] = e;
        }
        return table;
    }

    static <E> E lookup(E[] table, int code) {
        return code >= 0 && code < table.length ? table[code] : null;
    }
}
