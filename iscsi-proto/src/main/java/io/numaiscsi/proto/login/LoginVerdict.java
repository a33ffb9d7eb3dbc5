package io.numaiscsi.proto.login;

/** What the daemon does with a {@link LoginStep}. */
public enum LoginVerdict {
    /** Send the response, expect the next Login Request. */
    MORE,
    /** Send the response, enter the full feature phase. */
    DONE,
    /** Send the response, then close the connection. */
    FAIL
}
