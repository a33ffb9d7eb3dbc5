package io.numaiscsi.proto.login;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A LoginContext over one target, recording bindSession calls. */
final class FakeLoginContext implements LoginContext {
    static final String TARGET = "iqn.2024-01.io.numaiscsi:disk1";
    static final String INITIATOR = "iqn.1994-05.com.redhat:client";

    String alias = "disk one";
    boolean allowed = true;
    int tsihToAssign = 0x11;
    int binds;
    SessionType boundType;
    String boundTarget;
    int boundTsih;
    final List<KeyValue> targets = new ArrayList<>(
            List.of(new KeyValue("TargetName", TARGET), new KeyValue("TargetAddress", "192.0.2.1:3260,1")));
    final List<String> scopes = new ArrayList<>();

    @Override
    public TargetInfo findTarget(String targetName) {
        return TARGET.equals(targetName) ? new TargetInfo(TARGET, alias) : null;
    }

    @Override
    public boolean initiatorAllowed(TargetInfo target, String initiatorName) {
        return allowed;
    }

    @Override
    public int bindSession(SessionType type, String initiatorName, long isid, int tsih, int cid, String targetName) {
        binds++;
        boundType = type;
        boundTarget = targetName;
        boundTsih = tsih;
        return tsihToAssign;
    }

    @Override
    public int targetPortalGroupTag() {
        return 1;
    }

    @Override
    public List<KeyValue> sendTargets(String initiatorName, String scope) {
        scopes.add(scope);
        return targets;
    }

    /** "k=v" strings as a text data segment. */
    static byte[] text(String... pairs) {
        StringBuilder sb = new StringBuilder();
        for (String p : pairs) {
            sb.append(p).append('\0');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static List<KeyValue> keys(byte[] data) {
        try {
            return TextParameters.parse(data, 0, data.length, true);
        } catch (TextFormatException e) {
            throw new AssertionError(e);
        }
    }

    /** The value of a key in a response text, or null. */
    static String value(byte[] data, String key) {
        for (KeyValue kv : keys(data)) {
            if (kv.key().equals(key)) {
                return kv.value();
            }
        }
        return null;
    }
}
