package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.scsi.BlockDevice;
import io.numaiscsi.scsi.IoCompletion;
import io.numaiscsi.scsi.IoStatus;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The A/B baseline ({@code cache.mode: page-cache}): a file through the kernel page cache, no
 * O_DIRECT, blocking I/O on the injected executor. Unmap writes zeros (no hole punching), and every
 * block reports mapped.
 */
public final class PageCacheFileBlockDevice implements BlockDevice {
  private static final Logger LOG = LoggerFactory.getLogger(PageCacheFileBlockDevice.class);
  private static final int ZERO_CHUNK = 1 << 20;
  private static final int POOL_LIMIT = 256;

  private final Path file;
  private final long size;
  private final int blockSize;
  private final FileChannel channel;
  private final Executor executor;
  private final Op[] pool = new Op[POOL_LIMIT];
  private int pooled;
  private final ByteBuffer zeros = ByteBuffer.allocateDirect(ZERO_CHUNK);
  private volatile boolean closed;

  private PageCacheFileBlockDevice(Path file, long size, int blockSize, FileChannel channel, Executor executor) {
    this.file = file;
    this.size = size;
    this.blockSize = blockSize;
    this.channel = channel;
    this.executor = executor;
  }

  /** Opens {@code file}, creating a sparse file of {@code sizeBytes}; an existing file must have that size. */
  public static PageCacheFileBlockDevice open(Path file, long sizeBytes, int blockSize, Executor ioExecutor)
      throws IOException {
    if (blockSize != 512 && blockSize != 4096) {
      throw new IOException("block size must be 512 or 4096: " + blockSize);
    }
    if (sizeBytes <= 0 || sizeBytes % blockSize != 0) {
      throw new IOException("size of " + file + " must be a positive multiple of " + blockSize + ": " + sizeBytes);
    }
    if (Files.exists(file)) {
      if (Files.size(file) != sizeBytes) {
        throw new IOException("backing file " + file + " is " + Files.size(file) + " bytes, configured " + sizeBytes);
      }
    } else {
      try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
        raf.setLength(sizeBytes);
      }
    }
    FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    return new PageCacheFileBlockDevice(file, sizeBytes, blockSize, ch, ioExecutor);
  }

  @Override
  public int blockSize() {
    return blockSize;
  }

  @Override
  public long blockCount() {
    return size / blockSize;
  }

  @Override
  public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
    if (inRange(offset, length, done)) {
      dst.ensureWritable(length);
      submit(Op.READ, offset, length, dst, false, done);
    }
  }

  @Override
  public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
    if (inRange(offset, src.readableBytes(), done)) {
      submit(Op.WRITE, offset, src.readableBytes(), src, fua, done);
    }
  }

  @Override
  public void flush(IoCompletion done) {
    submit(Op.FLUSH, 0, 0, null, false, done);
  }

  @Override
  public void unmap(long offset, long length, IoCompletion done) {
    if (inRange(offset, length, done)) {
      submit(Op.UNMAP, offset, length, null, false, done);
    }
  }

  @Override
  public boolean isMapped(long offset) {
    return true;
  }

  @Override
  public long nextMappingChange(long offset) {
    return size;
  }

  @Override
  public void close() {
    closed = true;
    try {
      channel.close();
    } catch (IOException e) {
      LOG.warn("{}: close failed: {}", file, e.toString());
    }
  }

  private boolean inRange(long offset, long length, IoCompletion done) {
    if (offset < 0 || length < 0 || offset > size || length > size - offset) {
      done.ioComplete(IoStatus.OUT_OF_RANGE);
      return false;
    }
    return true;
  }

  private void submit(int op, long offset, long length, ByteBuf buf, boolean fua, IoCompletion done) {
    if (closed) {
      done.ioComplete(IoStatus.UNAVAILABLE);
      return;
    }
    Op o;
    synchronized (pool) {
      o = pooled > 0 ? pool[--pooled] : new Op(this);
    }
    o.op = op;
    o.offset = offset;
    o.length = length;
    o.buf = buf;
    o.fua = fua;
    o.done = done;
    try {
      executor.execute(o);
    } catch (RejectedExecutionException e) {
      give(o);
      done.ioComplete(IoStatus.UNAVAILABLE);
    }
  }

  private void give(Op o) {
    o.buf = null;
    o.done = null;
    synchronized (pool) {
      if (pooled < POOL_LIMIT) {
        pool[pooled++] = o;
      }
    }
  }

  IoStatus perform(int op, long offset, long length, ByteBuf buf, boolean fua) {
    try {
      switch (op) {
        case Op.READ -> {
          int wi = buf.writerIndex();
          ByteBuffer bb = buf.nioBuffer(wi, (int) length);
          long pos = offset;
          while (bb.hasRemaining()) {
            int n = channel.read(bb, pos);
            if (n < 0) {
              while (bb.hasRemaining()) {
                bb.put((byte) 0);
              }
              break;
            }
            pos += n;
          }
          if (buf.nioBufferCount() != 1) {
            bb.flip();
            buf.setBytes(wi, bb);
          }
          buf.writerIndex(wi + (int) length);
        }
        case Op.WRITE -> {
          ByteBuffer bb = buf.nioBuffer(buf.readerIndex(), (int) length);
          writeFully(bb, offset);
          if (fua) {
            channel.force(false);
          }
        }
        case Op.FLUSH -> channel.force(false);
        case Op.UNMAP -> {
          long pos = offset;
          while (pos < offset + length) {
            ByteBuffer z = zeros.duplicate();
            z.limit((int) Math.min(ZERO_CHUNK, offset + length - pos));
            writeFully(z, pos);
            pos += z.limit();
          }
        }
        default -> throw new IllegalStateException("op " + op);
      }
      return IoStatus.OK;
    } catch (IOException e) {
      if (closed) {
        return IoStatus.UNAVAILABLE;
      }
      LOG.warn("{}: I/O error at offset {} length {}: {}", file, offset, length, e.toString());
      return String.valueOf(e.getMessage()).contains("No space left") ? IoStatus.NO_SPACE : IoStatus.MEDIUM_ERROR;
    }
  }

  private void writeFully(ByteBuffer bb, long offset) throws IOException {
    long pos = offset;
    while (bb.hasRemaining()) {
      pos += channel.write(bb, pos);
    }
  }

  /** One pooled unit of blocking work. */
  private static final class Op implements Runnable {
    static final int READ = 1;
    static final int WRITE = 2;
    static final int FLUSH = 3;
    static final int UNMAP = 4;

    private final PageCacheFileBlockDevice device;
    int op;
    long offset;
    long length;
    ByteBuf buf;
    boolean fua;
    IoCompletion done;

    Op(PageCacheFileBlockDevice device) {
      this.device = device;
    }

    @Override
    public void run() {
      IoCompletion d = done;
      IoStatus st = device.perform(op, offset, length, buf, fua);
      device.give(this);
      d.ioComplete(st);
    }
  }
}
