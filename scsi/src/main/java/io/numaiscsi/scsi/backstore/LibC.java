package io.numaiscsi.scsi.backstore;

import jnr.ffi.LibraryLoader;
import jnr.ffi.annotations.SaveError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The few libc calls Java's file API lacks: hole punching and SEEK_DATA/SEEK_HOLE. */
public interface LibC {
  int O_RDWR = 2;
  int O_CLOEXEC = 0x80000;
  int FALLOC_FL_KEEP_SIZE = 0x01;
  int FALLOC_FL_PUNCH_HOLE = 0x02;
  int SEEK_DATA = 3;
  int SEEK_HOLE = 4;
  int ENXIO = 6;
  int EOPNOTSUPP = 95;

  @SaveError
  int open(String path, int flags);

  @SaveError
  int close(int fd);

  @SaveError
  int fallocate(int fd, int mode, long offset, long length);

  @SaveError
  long lseek(int fd, long offset, int whence);

  /** libc, or null where it cannot be loaded (callers fall back to portable behaviour). */
  static LibC instance() {
    return Holder.LIBC;
  }

  static int errno() {
    return jnr.ffi.Runtime.getRuntime(Holder.LIBC).getLastError();
  }

  /** Lazy, failure-tolerant loading. */
  final class Holder {
    private static final Logger LOG = LoggerFactory.getLogger(LibC.class);
    static final LibC LIBC = load();

    private Holder() {}

    private static LibC load() {
      try {
        return LibraryLoader.create(LibC.class).load("c");
      } catch (RuntimeException | LinkageError e) {
        LOG.warn("libc not loadable through jnr-ffi ({}); unmap writes zeros and every block reads as mapped", e.toString());
        return null;
      }
    }
  }
}
