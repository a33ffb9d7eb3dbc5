package io.numaiscsi.proto.login;

/** Progress of the security negotiation after one exchange. */
public enum AuthVerdict {
    CONTINUE,
    SUCCESS,
    FAIL
}
