package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class NettyDefaultsTest {

    @Test
    void leakDetectionIsDisabledAndRecyclerBatchesAre256WhenNothingIsGiven() {
        Properties p = new Properties();
        NettyDefaults.applyUnlessAsked(p);
        assertEquals("disabled", p.getProperty(NettyDefaults.LEVEL));
        assertEquals("256", p.getProperty(NettyDefaults.RECYCLER_BATCH));
    }

    @Test
    void givenValuesWin() {
        Properties p = new Properties();
        p.setProperty(NettyDefaults.LEVEL, "paranoid");
        p.setProperty(NettyDefaults.RECYCLER_BATCH, "64");
        NettyDefaults.applyUnlessAsked(p);
        assertEquals("paranoid", p.getProperty(NettyDefaults.LEVEL));
        assertEquals("64", p.getProperty(NettyDefaults.RECYCLER_BATCH));
    }

    @Test
    void theLegacyLeakPropertyWinsToo() {
        Properties p = new Properties();
        p.setProperty(NettyDefaults.LEGACY_LEVEL, "simple");
        NettyDefaults.applyUnlessAsked(p);
        assertNull(p.getProperty(NettyDefaults.LEVEL), "Netty reads the legacy name when the new one is absent");
    }
}
