package io.numaiscsi.proto.login;

/**
 * The Login Response to send (RFC 7143 11.13) and what to do after it. Version-max and version-active are always 0x00.
 * {@code reason} is a one-line log message when the verdict is FAIL, null otherwise.
 */
public record LoginStep(LoginVerdict verdict, int statusClass, int statusDetail, boolean transit, boolean continueBit,
        int csg, int nsg, int tsih, byte[] data, String reason) {}
