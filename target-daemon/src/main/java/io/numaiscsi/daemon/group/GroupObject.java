package io.numaiscsi.daemon.group;

import io.numaiscsi.config.GroupSettings;
import io.numaiscsi.rbd.CephClient;
import io.numaiscsi.rbd.FencedException;
import io.numaiscsi.rbd.ImageProbe;
import io.numaiscsi.rbd.RadosConnection;
import io.numaiscsi.rbd.RadosObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The RADOS objects of a gateway group, through this member's own client: {@code numa-iscsi.group.<name>} holds the
 * group's document, replaced whole with its version asserted (of two members changing it at once, one wins and the
 * other reads again); {@code <that>.members} carries each member's health as an attribute {@code health.<member>}.
 */
final class GroupObject implements AutoCloseable {
    private final GroupSettings settings;
    private final String oid;
    private final String membersOid;
    private RadosConnection connection;
    private RadosObject objects;

    private GroupObject(GroupSettings settings) {
        this.settings = settings;
        this.oid = settings.objectName();
        this.membersOid = oid + ".members";
    }

    /** Connects as the member's Ceph client. */
    static GroupObject connect(GroupSettings settings) throws IOException {
        GroupObject o = new GroupObject(settings);
        o.open();
        return o;
    }

    private synchronized void open() throws IOException {
        RadosConnection c = RadosConnection.connect(client(settings));
        try {
            objects = RadosObject.open(c, settings.pool());
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        connection = c;
    }

    static CephClient client(GroupSettings s) {
        return new CephClient(s.cephConf(), s.user(), s.keyring(), s.timeout());
    }

    /** The cluster's fsid. */
    synchronized String fsid() throws IOException {
        return connection.fsid();
    }

    /** The document's text and version; version {@link RadosObject#ABSENT} and "" when there is no group yet. */
    record Text(String text, long version) {}

    Text read() throws IOException {
        RadosObject.Versioned v = call(() -> objects.read(oid));
        return new Text(new String(v.data(), StandardCharsets.UTF_8), v.version());
    }

    /** Writes {@code text} if the version is still {@code expected}; the new version, or {@link RadosObject#LOST}. */
    long replace(String text, long expected) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > RadosObject.MAX_BYTES) {
            throw new IOException("the group's configuration would be " + bytes.length + " bytes, more than its object"
                    + " holds (" + RadosObject.MAX_BYTES + ")");
        }
        return call(() -> objects.write(oid, bytes, expected));
    }

    /** Sets this member's health attribute (the members object is made the first time). */
    void health(String member, byte[] value) throws IOException {
        call(() -> {
            if (objects.attribute(membersOid, "created") == null) {
                objects.replace(membersOid, new byte[0], RadosObject.ABSENT); // lost: another member made it
                objects.setAttribute(membersOid, "created", new byte[] {1});
            }
            objects.setAttribute(membersOid, "health." + member, value);
            return null;
        });
    }

    /** A member's health attribute, or null. */
    byte[] healthOf(String member) throws IOException {
        return call(() -> objects.attribute(membersOid, "health." + member));
    }

    /** The size of an RBD image of the group, or why it cannot be served. */
    long imageSize(String pool, String image) throws IOException {
        return call(() -> ImageProbe.size(connection, pool, image));
    }

    private interface Call<T> {
        T run() throws IOException;
    }

    /** Runs {@code call}; a client another gateway blocklisted is replaced by a new one and the call made again. */
    private synchronized <T> T call(Call<T> call) throws IOException {
        try {
            return call.run();
        } catch (FencedException e) {
            close();
            open();
            return call.run();
        }
    }

    @Override
    public synchronized void close() {
        if (objects != null) {
            objects.close();
        }
        if (connection != null) {
            connection.close();
        }
    }
}
