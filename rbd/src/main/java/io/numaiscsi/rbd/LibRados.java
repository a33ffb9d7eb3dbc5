package io.numaiscsi.rbd;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.Out;

/**
 * The librados calls this module uses ({@code /usr/include/rados/librados.h}, Ceph 16). Handles (cluster, ioctx,
 * write op) are passed as native addresses in {@code long}s, so no {@link Pointer} object is made per call. Public only
 * because jnr-ffi generates the implementation in another class loader.
 */
public interface LibRados {
  /** The runtime library of Debian's librados2 (the unversioned name exists only with the -dev package). */
  String LIBRARY = "librados.so.2";

  int rados_create2(@Out long[] cluster, String clusterName, String name, long flags);

  int rados_conf_read_file(long cluster, String path);

  int rados_conf_set(long cluster, String option, String value);

  int rados_connect(long cluster);

  void rados_shutdown(long cluster);

  int rados_ioctx_create(long cluster, String pool, @Out long[] ioctx);

  void rados_ioctx_destroy(long ioctx);

  /** Bytes read or -errno. */
  int rados_read(long ioctx, String oid, Pointer buf, long len, long off);

  /** The version of the object last read or written through {@code ioctx}. */
  long rados_get_last_version(long ioctx);

  long rados_create_write_op();

  void rados_release_write_op(long op);

  void rados_write_op_assert_version(long op, long version);

  void rados_write_op_create(long op, int exclusive, String category);

  void rados_write_op_write_full(long op, Pointer buffer, long len);

  /** 0 or -errno ({@code mtime} 0: now). */
  int rados_write_op_operate(long op, long ioctx, String oid, long mtime, int flags);

  static LibRados load() {
    return NativeLibraries.load(LibRados.class, LIBRARY, "librados2");
  }
}
