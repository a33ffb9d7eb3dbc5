package io.numaiscsi.rbd;

import jnr.ffi.annotations.Delegate;
import jnr.ffi.annotations.Out;

/**
 * The librbd calls this module uses ({@code /usr/include/rbd/librbd.h}, Ceph 16); handles and buffers as native
 * addresses in {@code long}s. Public only because jnr-ffi generates the implementation in another class loader.
 */
public interface LibRbd {
  /** The runtime library of Debian's librbd1. */
  String LIBRARY = "librbd.so.1";
  /** librados' LIBRADOS_OP_FLAG_FADVISE_FUA, an op flag of rbd_aio_write2. */
  int OP_FLAG_FADVISE_FUA = 0x80;

  /** rbd_callback_t: called on a librbd thread when an aio request completes. */
  interface Completion {
    @Delegate
    void complete(long completion, long arg);
  }

  int rbd_open(long ioctx, String name, @Out long[] image, String snapName);

  int rbd_close(long image);

  int rbd_get_size(long image, @Out long[] size);

  /**
   * A completion calling {@code callback} (the native address of a {@link Completion} stub) with {@code arg}, written
   * to the 8 bytes at {@code completionOut}: addresses, so the call converts and allocates nothing.
   */
  int rbd_aio_create_completion(long arg, long callback, long completionOut);

  long rbd_aio_get_return_value(long completion);

  void rbd_aio_release(long completion);

  int rbd_aio_read(long image, long off, long len, long buf, long completion);

  int rbd_aio_write2(long image, long off, long len, long buf, long completion, int opFlags);

  int rbd_aio_discard(long image, long off, long len, long completion);

  int rbd_aio_write_zeroes(long image, long off, long len, long completion, int zeroFlags, int opFlags);

  int rbd_aio_flush(long image, long completion);

  static LibRbd load() {
    return NativeLibraries.load(LibRbd.class, LIBRARY, "librbd1");
  }
}
