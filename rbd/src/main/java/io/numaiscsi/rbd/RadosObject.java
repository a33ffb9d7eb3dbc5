package io.numaiscsi.rbd;

import java.io.IOException;
import java.util.Objects;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;

/**
 * Small RADOS objects read with their version and replaced only if nobody changed them since (compare-and-swap):
 * state several gateways share, such as persistent reservations. One object's whole content is read and written at
 * once; at most {@link #MAX_BYTES}.
 */
public final class RadosObject implements AutoCloseable {
  public static final int MAX_BYTES = 1 << 20;
  /** The version of an object that does not exist: {@link #replace} with it creates the object, exclusively. */
  public static final long ABSENT = 0;
  private static final int EOVERFLOW = 75;

  /** An object's bytes and the version they had; {@code version} {@link #ABSENT} and no bytes when it is missing. */
  public record Versioned(byte[] data, long version) {
    public Versioned {
      Objects.requireNonNull(data, "data");
    }
  }

  private final String pool;
  private long ioctx;

  private RadosObject(String pool, long ioctx) {
    this.pool = pool;
    this.ioctx = ioctx;
  }

  /** Objects in {@code pool} through {@code connection}, which must stay open until this is closed. */
  public static RadosObject open(RadosConnection connection, String pool) throws IOException {
    return new RadosObject(pool, connection.openPool(pool));
  }

  /** The object's bytes and version, or empty bytes and {@link #ABSENT} when it does not exist. */
  public synchronized Versioned read(String oid) throws IOException {
    requireOpen();
    LibRados r = RadosConnection.rados();
    Pointer buf = Memory.allocateDirect(jnr.ffi.Runtime.getRuntime(r), MAX_BYTES + 1);
    int rc = r.rados_read(ioctx, oid, buf, MAX_BYTES + 1, 0);
    if (rc == -Errno.ENOENT) {
      return new Versioned(new byte[0], ABSENT);
    }
    if (rc < 0) {
      throw new IOException("cannot read RADOS object " + pool + "/" + oid + ": " + Errno.name(rc));
    }
    if (rc > MAX_BYTES) {
      throw new IOException("RADOS object " + pool + "/" + oid + " is larger than " + MAX_BYTES + " bytes");
    }
    long version = r.rados_get_last_version(ioctx);
    byte[] data = new byte[rc];
    buf.get(0, data, 0, rc);
    return new Versioned(data, version);
  }

  /**
   * Replaces the object's content with {@code data} if its version is still {@code expectedVersion} (creates it if
   * that is {@link #ABSENT} and it still does not exist). Exactly one of several writers racing from the same version
   * wins.
   *
   * @return true when written; false when another writer changed (or created, or removed) it first
   * @throws IOException the cluster failed the write for another reason
   */
  public synchronized boolean replace(String oid, byte[] data, long expectedVersion) throws IOException {
    requireOpen();
    if (data.length > MAX_BYTES) {
      throw new IllegalArgumentException(data.length + " bytes is more than " + MAX_BYTES);
    }
    LibRados r = RadosConnection.rados();
    Pointer buf = Memory.allocateDirect(jnr.ffi.Runtime.getRuntime(r), Math.max(1, data.length));
    buf.put(0, data, 0, data.length);
    long op = r.rados_create_write_op();
    if (op == 0) {
      throw new IOException("rados_create_write_op failed");
    }
    try {
      if (expectedVersion == ABSENT) {
        r.rados_write_op_create(op, 1, null);
      } else {
        r.rados_write_op_assert_version(op, expectedVersion);
      }
      r.rados_write_op_write_full(op, buf, data.length);
      int rc = r.rados_write_op_operate(op, ioctx, oid, 0, 0);
      if (rc == 0) {
        return true;
      }
      int e = -rc;
      // EEXIST: created by another; ERANGE / EOVERFLOW: the version moved on; ENOENT: removed; ECANCELED: failed assert
      if (e == Errno.EEXIST || e == Errno.ERANGE || e == EOVERFLOW || e == Errno.ENOENT || e == Errno.ECANCELED) {
        return false;
      }
      throw new IOException("cannot write RADOS object " + pool + "/" + oid + ": " + Errno.name(rc));
    } finally {
      r.rados_release_write_op(op);
    }
  }

  private void requireOpen() throws IOException {
    if (ioctx == 0) {
      throw new IOException("RADOS objects of pool " + pool + ": closed");
    }
  }

  @Override
  public synchronized void close() {
    if (ioctx != 0) {
      RadosConnection.rados().rados_ioctx_destroy(ioctx);
      ioctx = 0;
    }
  }
}
