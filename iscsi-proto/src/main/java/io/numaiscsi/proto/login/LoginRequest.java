package io.numaiscsi.proto.login;

/** The fields of one Login Request PDU (RFC 7143 11.12) the state machine needs; {@code data} is its text segment. */
public record LoginRequest(
        boolean transit,
        boolean continueBit,
        int csg,
        int nsg,
        int versionMax,
        int versionMin,
        long isid,
        int tsih,
        int cid,
        int cmdSN,
        int expStatSN,
        int initiatorTaskTag,
        byte[] data) {
    public LoginRequest {
        if (data == null) {
            data = new byte[0];
        }
    }
}
