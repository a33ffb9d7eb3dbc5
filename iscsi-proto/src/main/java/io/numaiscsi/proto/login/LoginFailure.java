package io.numaiscsi.proto.login;

import io.numaiscsi.proto.LoginStatus;

/** Why a login is refused: the Login Response status and a one-line reason for the log. */
record LoginFailure(LoginStatus status, String reason) {
    static LoginFailure initiatorError(String reason) {
        return new LoginFailure(LoginStatus.INITIATOR_ERROR, reason);
    }
}
