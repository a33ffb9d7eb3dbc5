package io.numaiscsi.proto.login;

import java.util.List;

/** AuthMethod=None (stateless, so shared). */
final class NoAuthentication implements Authenticator {
    static final NoAuthentication INSTANCE = new NoAuthentication();

    private NoAuthentication() {}

    @Override
    public String method() {
        return "None";
    }

    @Override
    public AuthVerdict start(String initiatorName, String targetName, List<KeyValue> response) {
        return AuthVerdict.SUCCESS;
    }

    @Override
    public AuthVerdict onKeys(List<KeyValue> keys, List<KeyValue> response) {
        return AuthVerdict.FAIL;
    }
}
