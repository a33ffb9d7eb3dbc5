package io.numaiscsi.proto.login;

/** Why a login is refused: the Login Response status and a one-line reason for the log. */
record LoginFailure(int statusClass, int statusDetail, String reason) {
    static LoginFailure initiatorError(String reason) {
        return new LoginFailure(LoginStatus.INITIATOR_ERROR, LoginStatus.MISCELLANEOUS, reason);
    }
}
