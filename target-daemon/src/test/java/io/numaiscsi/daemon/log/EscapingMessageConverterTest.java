package io.numaiscsi.daemon.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class EscapingMessageConverterTest {

    @Test
    void plainTextIsReturnedAsIs() {
        String s = "login from 127.0.0.1:40000 rejected: iqn.2026-11.test:h may not log in";
        assertSame(s, EscapingMessageConverter.escape(s));
    }

    @Test
    void controlCharactersCannotForgeALineOrDriveATerminal() {
        assertEquals(
                "iqn.x\\n12:00:00.000 INFO  forged",
                EscapingMessageConverter.escape("iqn.x\n12:00:00.000 INFO  forged"));
        assertEquals("a\\rb\\tc", EscapingMessageConverter.escape("a\rb\tc"));
        assertEquals("\\x1b[31mred\\x1b[0m", EscapingMessageConverter.escape("\u001b[31mred\u001b[0m"));
        assertEquals("nul\\x00 del\\x7f c1\\x9b", EscapingMessageConverter.escape("nul\u0000 del\u007f c1\u009b"));
        assertEquals("ls\\u2028ps\\u2029", EscapingMessageConverter.escape("ls\u2028ps\u2029"));
        assertEquals(
                "caf\u00e9 \u65e5\u672c",
                EscapingMessageConverter.escape("caf\u00e9 \u65e5\u672c"),
                "printable text stays");
    }
}
