package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IscsiNamesTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "iqn.2026-11.io.numaiscsi:disk0",
                "iqn.2001-04.com.example",
                "iqn.2001-04.com.example:storage:diskarrays-sn-a8675309",
                "iqn.1994-05.com.redhat:5c1b7ea3c8e",
                "eui.02004567A425678D",
                "eui.02004567a425678d",
                "naa.52004567BA64678D",
                "naa.62004567BA64678D0123456789ABCDEF",
            })
    void acceptsValidNames(String name) {
        assertNull(IscsiNames.problem(name));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "disk0 | is not an iSCSI name",
                "IQN.2026-11.io.x:y | must be lower case",
                "iqn.2026-11.io.X:y | must be lower case (iSCSI names are case-normalized); write \"iqn.2026-11.io.x:y\"",
                "EUI.02004567A425678D | the type designator must be lower case (\"eui.\")",
                "iqn.26-11.io.x | lacks the date",
                "iqn.2026-1.io.x | lacks the date",
                "iqn.2026-00.io.x | month 00 is not 01..12",
                "iqn.2026-11. | lacks the reversed domain name",
                "iqn.2026-11.io..x | empty label in the reversed domain name",
                "iqn.2026-11.io.x: | ends with ':'",
                "iqn.2026-11.io.x:disk_0 | contains '_'",
                "eui.02004567A425678 | eui. must be followed by 16 hex digits",
                "eui.02004567A425678G | eui. must be followed by 16 hex digits",
                "naa.52004567BA64678D01 | naa. must be followed by 16 or 32 hex digits",
            })
    void rejectsBadNames(String name, String fragment) {
        String problem = IscsiNames.problem(name);
        assertTrue(problem != null && problem.contains(fragment), problem);
    }

    @Test
    void rejectsNamesOver223Bytes() {
        String name = "iqn.2026-11.io.x:" + "a".repeat(207);
        assertEquals(224, name.length());
        assertEquals("\"" + name + "\" is longer than 223 bytes", IscsiNames.problem(name));
        assertNull(IscsiNames.problem(name.substring(0, 223)));
    }
}
