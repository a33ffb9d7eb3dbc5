package io.numaiscsi.proto.login;

/** RFC 7143 13.21 SessionType. */
public enum SessionType {
    DISCOVERY,
    NORMAL
}
