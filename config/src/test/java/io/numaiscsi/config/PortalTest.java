package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PortalTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "127.0.0.1:3260      | 127.0.0.1           | 3260 | 127.0.0.1:3260",
                "0.0.0.0:1           | 0.0.0.0             | 1    | 0.0.0.0:1",
                "[::1]:3260          | ::1                 | 3260 | [::1]:3260",
                "[fe80::1%eth0]:3261 | fe80::1%eth0        | 3261 | [fe80::1%eth0]:3261",
                "[::]                | ::                  | 3260 | [::]:3260",
                "localhost           | localhost           | 3260 | localhost:3260",
                "san-1.example.com:65535 | san-1.example.com | 65535 | san-1.example.com:65535",
            })
    void parsesAndPrints(String text, String host, int port, String printed) {
        Portal p = Portal.parse(text);
        assertEquals(new Portal(host, port), p);
        assertEquals(printed, p.toString());
        assertEquals(p, Portal.parse(p.toString()));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "''                | portal is empty (use host:port, e.g. 127.0.0.1:3260)",
                "127.0.0.1:0       | portal \"127.0.0.1:0\": port 0 is out of range (1..65535)",
                "127.0.0.1:http    | portal \"127.0.0.1:http\": \"http\" is not a port (1..65535)",
                "127.0.0.1:        | portal \"127.0.0.1:\": \"\" is not a port (1..65535)",
                ":3260             | portal \":3260\": host is missing (use host:port, e.g. 127.0.0.1:3260)",
                "::1               | portal \"::1\": write IPv6 addresses in brackets, e.g. [::1]:3260",
                "[::1              | portal \"[::1\" lacks the closing ']' of its IPv6 address",
                "[::1]3260         | portal \"[::1]3260\": expected ':port' after ']'",
                "[10.0.0.1]:3260   | portal \"[10.0.0.1]:3260\": \"10.0.0.1\" is not an IPv6 address",
                "300.1.1.1:3260    | portal \"300.1.1.1:3260\": \"300.1.1.1\" is not an IPv4 address",
                "10.1.1:3260       | portal \"10.1.1:3260\": \"10.1.1\" is not an IPv4 address",
                "bad_host:3260     | portal \"bad_host:3260\": \"bad_host\" is not a host name or IP address",
            })
    void rejectsWithAClearMessage(String text, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Portal.parse(text));
        assertEquals(message, e.getMessage());
    }
}
