package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

class LongIntMapTest {

    @Test
    void randomOperationsMatchHashMap() {
        Random rnd = new Random(42);
        int capacity = 200;
        LongIntMap map = new LongIntMap(capacity);
        Map<Long, Integer> ref = new HashMap<>();
        for (int op = 0; op < 200_000; op++) {
            // a small key space (with colliding multiples) so inserts, hits and removals all happen often
            long key = rnd.nextInt(400) * (rnd.nextBoolean() ? 1L : 1L << 33);
            int kind = rnd.nextInt(3);
            if (kind == 0 && ref.size() < capacity) {
                int v = rnd.nextInt(1000);
                Integer old = ref.put(key, v);
                assertEquals(old == null ? LongIntMap.MISSING : old, map.put(key, v));
            } else if (kind == 1) {
                Integer old = ref.remove(key);
                assertEquals(old == null ? LongIntMap.MISSING : old, map.remove(key));
            } else {
                Integer v = ref.get(key);
                assertEquals(v == null ? LongIntMap.MISSING : v, map.get(key));
            }
            assertEquals(ref.size(), map.size());
        }
        for (Map.Entry<Long, Integer> e : ref.entrySet()) {
            assertEquals(e.getValue(), map.get(e.getKey()));
        }
    }

    @Test
    void fullMapRejectsAnotherKey() {
        LongIntMap map = new LongIntMap(2);
        for (int i = 0; i < 4; i++) {
            map.put(i, i); // capacity rounds up: 2 entries ask for a table of 4..8 with load <= 0.5
        }
        int before = map.size();
        Assertions.assertThrows(IllegalStateException.class, () -> {
            for (int i = 4; i < 100; i++) {
                map.put(i, i);
            }
        });
        Assertions.assertTrue(before >= 2);
    }
}
