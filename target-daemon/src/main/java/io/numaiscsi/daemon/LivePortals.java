package io.numaiscsi.daemon;

import io.netty.buffer.ByteBufAllocator;
import io.numaiscsi.config.Portal;
import io.numaiscsi.session.ServedPortals;
import io.numaiscsi.session.SessionServices;
import io.numaiscsi.tcp.TcpPortal;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The portals the daemon listens on now: the config's at start, then as the admin API adds and removes TCP portals.
 * Every change is published to the {@link ServedPortals} that SendTargets reports.
 */
public final class LivePortals {
    /** A portal listening now; {@code bound} is null for an iSER portal (RDMA CM, not a socket). */
    public record Listening(Portal portal, InetSocketAddress bound) {}

    private final TcpPortal tcp;
    private final ServedPortals served;
    private final List<Listening> listening = new ArrayList<>();

    LivePortals(TcpPortal tcp, ServedPortals served) {
        this.tcp = tcp;
        this.served = served;
    }

    /** Listens on a TCP portal; throws with the OS's reason when it cannot, nothing changed then. */
    synchronized Listening addTcp(Portal p, SessionServices services, ByteBufAllocator alloc)
            throws IOException, InterruptedException {
        Listening l = new Listening(p, tcp.listen(p.host(), p.port(), services, alloc));
        listening.add(l);
        publish();
        return l;
    }

    /** An iSER portal the caller listens on. */
    synchronized void addIser(Portal p) {
        listening.add(new Listening(p, null));
        publish();
    }

    /** Stops listening on a TCP portal; returns how many connections accepted there go on. */
    synchronized int removeTcp(Listening l) {
        if (l.bound() == null || !listening.remove(l)) {
            throw new IllegalArgumentException(l.portal() + " is not a TCP portal listening now");
        }
        publish();
        return Math.max(0, tcp.stop(l.bound()));
    }

    public synchronized List<Listening> list() {
        return List.copyOf(listening);
    }

    synchronized List<Portal> portals() {
        return listening.stream().map(Listening::portal).toList();
    }

    private void publish() {
        served.replace(listening.stream().map(l -> l.portal().toString()).toList());
    }
}
