package io.numaiscsi.session;

import io.numaiscsi.proto.login.SessionParameters;
import io.numaiscsi.proto.transport.RemoteAddresses;
import java.net.InetAddress;

/**
 * What an administrator sees of one session: who, from where, to which target, and what was negotiated. A copy taken
 * at one moment ({@link SessionTable#describe()}); the session goes on without it.
 *
 * @param type       {@code Normal} or {@code Discovery}
 * @param target     the target's name; empty for a discovery session
 * @param address    the connection's remote address; empty between connections
 * @param parameters the negotiated parameters; null while the connection is still logging in
 * @param commandsInFlight commands received and not yet answered, as last seen from another thread
 */
public record SessionInfo(
        int tsih,
        String type,
        String initiatorName,
        long isid,
        String target,
        String address,
        SessionParameters parameters,
        int commandsInFlight) {

    /** The initiator's IP address, for access rules; null when unknown. */
    public InetAddress remoteInetAddress() {
        return address.isEmpty() ? null : RemoteAddresses.parse(address);
    }
}
