package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TargetTest {

    @Test
    void parsesTheScriptsSpec() {
        Target t = Target.parse("name=tgtd,portal=127.0.0.1:13261,iqn=iqn.2026-11.test:tgt,luns=1+2,pid=4242");
        assertEquals(new Target("tgtd", "127.0.0.1", 13261, "iqn.2026-11.test:tgt", List.of(1, 2), 4242), t);
        assertEquals("iscsi://127.0.0.1:13261/iqn.2026-11.test:tgt/2", t.url(1));
    }

    @Test
    void fioFilenameEscapesEveryColon() {
        Target t = Target.parse("name=a,portal=127.0.0.1:3260,iqn=iqn.2026-11.io.numaiscsi:bench,luns=0,pid=1");
        assertEquals("iscsi\\://127.0.0.1\\:3260/iqn.2026-11.io.numaiscsi\\:bench/0", t.fioFilename(0));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "name=a,portal=127.0.0.1:1,iqn=x,luns=0",
                "name=a,portal=127.0.0.1,iqn=x,luns=0,pid=1",
                "name=a,portal=h:1,iqn=x,luns=,pid=1",
                "name=a;portal=h:1",
                "name=a,portal=h:1,iqn=x,luns=0,pid=z"
            })
    void badSpecsAreRejected(String spec) {
        assertThrows(IllegalArgumentException.class, () -> Target.parse(spec));
    }
}
