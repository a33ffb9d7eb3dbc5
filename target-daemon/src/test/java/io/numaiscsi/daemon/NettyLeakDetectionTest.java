package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class NettyLeakDetectionTest {

    @Test
    void isDisabledWhenNoLevelIsGiven() {
        Properties p = new Properties();
        NettyLeakDetection.offUnlessAsked(p);
        assertEquals("disabled", p.getProperty(NettyLeakDetection.LEVEL));
    }

    @Test
    void aGivenLevelWins() {
        Properties p = new Properties();
        p.setProperty(NettyLeakDetection.LEVEL, "paranoid");
        NettyLeakDetection.offUnlessAsked(p);
        assertEquals("paranoid", p.getProperty(NettyLeakDetection.LEVEL));
    }

    @Test
    void theLegacyPropertyWinsToo() {
        Properties p = new Properties();
        p.setProperty(NettyLeakDetection.LEGACY_LEVEL, "simple");
        NettyLeakDetection.offUnlessAsked(p);
        assertNull(p.getProperty(NettyLeakDetection.LEVEL), "Netty reads the legacy name when the new one is absent");
    }
}
