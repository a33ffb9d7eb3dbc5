package io.numaiscsi.daemon.reservations;

import io.numaiscsi.daemon.cluster.VersionedObject;
import io.numaiscsi.scsi.ReservationState;
import io.numaiscsi.scsi.SharedReservations;
import java.io.IOException;

/** A LUN's shared persistent reservations in a {@link VersionedObject}, as the JSON the reservation files hold. */
public final class SharedReservationObject implements SharedReservations {
    private final VersionedObject object;
    private final String target;
    private final int lun;

    public SharedReservationObject(VersionedObject object, String target, int lun) {
        this.object = object;
        this.target = target;
        this.lun = lun;
    }

    @Override
    public Versioned read() throws IOException {
        VersionedObject.Contents c = object.read();
        if (c.bytes().length == 0) {
            return new Versioned(c.version(), ReservationState.EMPTY);
        }
        try {
            return new Versioned(c.version(), ReservationJson.decode(c.bytes(), target, lun));
        } catch (RuntimeException e) {
            throw new IOException(object + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Replaced replace(long expectedVersion, ReservationState next, boolean abortsTasks) throws IOException {
        VersionedObject.Replaced r =
                object.replace(expectedVersion, ReservationJson.encode(target, lun, next), abortsTasks);
        return new Replaced(r.version(), r.takenUp());
    }

    @Override
    public void peerChanges(PeerChanges listener) {
        object.changes(listener::changed);
    }

    @Override
    public long knownVersion() {
        return object.knownVersion();
    }

    @Override
    public String toString() {
        return object.toString();
    }
}
