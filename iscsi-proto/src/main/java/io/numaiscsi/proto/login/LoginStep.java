package io.numaiscsi.proto.login;

import io.numaiscsi.proto.LoginStatus;

/**
 * The Login Response to send (RFC 7143 11.13) and what to do after it. Version-max and version-active are always 0x00.
 * {@code status} is SUCCESS unless the verdict is FAIL; {@code reason} is then a one-line log message, null otherwise.
 */
public record LoginStep(
        LoginVerdict verdict,
        LoginStatus status,
        boolean transit,
        boolean continueBit,
        int csg,
        int nsg,
        int tsih,
        byte[] data,
        String reason) {}
