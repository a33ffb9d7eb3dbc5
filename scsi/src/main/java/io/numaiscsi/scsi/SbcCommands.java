package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;

/**
 * Execute steps of the SBC-3 block commands. Data commands go to the {@link BlockDevice} and resume
 * in {@link #ioComplete} (the task's phase says where); READ and WRITE allocate nothing but the
 * read buffer.
 */
final class SbcCommands {
  static final int PHASE_READ = 1;
  static final int PHASE_WRITE = 2;
  static final int PHASE_FLUSH = 3;
  static final int PHASE_UNMAP = 4;
  static final int PHASE_WRITE_SAME = 5;
  static final int PHASE_VERIFY_READ = 6;
  static final int PHASE_COMPARE_READ = 7;
  static final int PHASE_COMPARE_WRITE = 8;
  static final int PHASE_OR_READ = 9;
  static final int PHASE_OR_WRITE = 10;
  static final int PHASE_ATOMIC_WRITE = 11;
  /** Unmapped or zeroed with the unit's write cache off (WCE=0): a flush makes it durable before the status. */
  static final int PHASE_THEN_FLUSH = 22;
  /** PRE-FETCH of the whole range into the cache ({@link Prefetch}). */
  static final int PHASE_PREFETCH_WHOLE = 20;
  /** PRE-FETCH of as much of the range as the cache takes at once. */
  static final int PHASE_PREFETCH_PART = 21;

  private static final int WRITE_SAME_CHUNK_BYTES = 8 << 20;
  private static final int GET_LBA_STATUS_MAX_DESCRIPTORS = 64;

  private SbcCommands() {}

  static void read(ScsiTask t) {
    if (t.blocks == 0) {
      t.completeGood();
      return;
    }
    LogicalUnit lu = t.unit;
    int length = (int) t.blocks * lu.blockSize;
    t.phase = PHASE_READ;
    if ((t.sharedDataIn() || length >= lu.sharedReadMin())
        && lu.device.readShared(t.lba * lu.blockSize, length, lu.alloc, t.io)) {
      return;
    }
    ByteBuf buf = lu.alloc.directBuffer(length, length);
    t.dataIn = buf;
    lu.device.read(t.lba * lu.blockSize, length, buf, t.io);
  }

  /**
   * WRITE, WRITE AND VERIFY, WRITE SAME and UNMAP, once no atomic command holds or wants the unit's
   * {@link AtomicWriteLock} (else parked until then).
   */
  static void startPlainWrite(ScsiTask t) {
    if (t.aborted()) {
      t.completeFailed(SenseReason.TASK_ABORTED); // aborted while it was parked
      return;
    }
    if (!t.unit.atomicWriteLock.admitPlainWrite(t)) {
      return;
    }
    t.plainWrite = true;
    switch (t.kind) {
      case UNMAP -> unmap(t);
      case WRITE_SAME -> writeSame(t);
      default -> write(t);
    }
  }

  /** A plain write of {@code lu} finished: an atomic command waiting for plain writes to drain may start. */
  static void plainWriteDone(LogicalUnit lu) {
    ScsiTask atomic = lu.atomicWriteLock.plainWriteDone();
    if (atomic != null) {
      startLocked(atomic);
    }
  }

  /** WRITE and WRITE AND VERIFY; only whole blocks the transport collected are written (EDTL may be short). */
  private static void write(ScsiTask t) {
    LogicalUnit lu = t.unit;
    ByteBuf src = t.dataOut;
    long received = src == null ? 0 : src.readableBytes() / lu.blockSize;
    long blocks = Math.min(t.blocks, received);
    if (blocks == 0) {
      t.completeGood();
      return;
    }
    src.writerIndex(src.readerIndex() + (int) blocks * lu.blockSize);
    t.phase = PHASE_WRITE;
    lu.device.write(t.lba * lu.blockSize, src, t.fua, t.io);
  }

  static void verify(ScsiTask t) {
    if (t.blocks == 0 || t.byteCheck == 0) {
      t.completeGood(); // BYTCHK 0: the medium check is the range check already done
      return;
    }
    LogicalUnit lu = t.unit;
    int length = (int) t.blocks * lu.blockSize;
    if (t.dataOut == null || t.dataOut.readableBytes() < length) {
      t.completeFailed(SenseReason.INVALID_FIELD_IN_CDB);
      return;
    }
    t.scratch = lu.alloc.directBuffer(length, length);
    t.phase = PHASE_VERIFY_READ;
    lu.device.read(t.lba * lu.blockSize, length, t.scratch, t.io);
  }

  static void synchronizeCache(ScsiTask t) {
    t.phase = PHASE_FLUSH;
    t.unit.device.flush(t.io);
  }

  static void compareAndWrite(ScsiTask t) {
    if (t.blocks == 0) {
      t.completeGood();
      return;
    }
    if (t.dataOut == null || t.dataOut.readableBytes() < t.dataOutLength) {
      t.completeFailed(SenseReason.INVALID_FIELD_IN_CDB);
      return;
    }
    if (t.unit.atomicWriteLock.tryAcquire(t)) {
      startLocked(t);
    }
  }

  /**
   * ORWRITE (SBC-3 5.8): reads the range, ORs the Data-Out into it and writes the result, holding the unit's
   * {@link AtomicWriteLock} throughout, as COMPARE AND WRITE does.
   */
  static void orWrite(ScsiTask t) {
    LogicalUnit lu = t.unit;
    long received = t.dataOut == null ? 0 : t.dataOut.readableBytes() / lu.blockSize;
    t.blocks = Math.min(t.blocks, received); // like WRITE: only whole blocks the transport collected
    if (t.blocks == 0) {
      t.completeGood();
      return;
    }
    if (lu.atomicWriteLock.tryAcquire(t)) {
      startLocked(t);
    }
  }

  /**
   * WRITE ATOMIC(16): all of the Data-Out as one device request, under the unit's {@link AtomicWriteLock}, so no
   * other command of this unit that changes blocks is in flight beside it. What else that guarantees depends on the
   * store: a RAM store copies a request in one step on the unit's thread (no read of the unit sees half of it); a
   * file or block device gets one pwritev / io_uring write, which Linux does not promise to keep whole against a
   * crash, nor against a concurrent READ of another task; the write-back cache splits a request across its granules.
   * The decoder caps the length at the Block Limits maximum atomic transfer length.
   */
  static void writeAtomic(ScsiTask t) {
    if (t.blocks == 0) {
      t.completeGood();
      return;
    }
    if (t.dataOut == null || t.dataOut.readableBytes() < t.dataOutLength) {
      t.completeFailed(SenseReason.INVALID_FIELD_IN_CDB); // all or nothing: a short Data-Out writes nothing
      return;
    }
    if (t.unit.atomicWriteLock.tryAcquire(t)) {
      startLocked(t);
    }
  }

  /** First I/O of a task that now holds the unit's atomic write lock. */
  private static void startLocked(ScsiTask t) {
    LogicalUnit lu = t.unit;
    int length = (int) t.blocks * lu.blockSize;
    long offset = t.lba * lu.blockSize;
    if (t.kind == CommandKind.WRITE_ATOMIC) {
      ByteBuf data = t.dataOut;
      data.writerIndex(data.readerIndex() + length);
      t.phase = PHASE_ATOMIC_WRITE;
      lu.device.write(offset, data, t.fua, t.io);
      return;
    }
    t.scratch = lu.alloc.directBuffer(length, length);
    t.phase = t.kind == CommandKind.ORWRITE ? PHASE_OR_READ : PHASE_COMPARE_READ;
    lu.device.read(offset, length, t.scratch, t.io);
  }

  private static void finishLocked(ScsiTask t, SenseReason failure, long information) {
    AtomicWriteLock lock = t.unit.atomicWriteLock;
    if (failure == null) {
      t.completeGood();
    } else {
      t.completeFailed(failure, information, failure == SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION);
    }
    ScsiTask next = lock.release();
    if (next != null) {
      startLocked(next);
      return;
    }
    for (ScsiTask parked = lock.nextParkedWrite(); parked != null; parked = lock.nextParkedWrite()) {
      startPlainWrite(parked);
    }
  }

  /** Writes medium | Data-Out, computed in the read buffer. */
  private static void orAndWrite(ScsiTask t) {
    ByteBuf medium = t.scratch;
    ByteBuf data = t.dataOut;
    int length = medium.readableBytes();
    int m = medium.readerIndex();
    int d = data.readerIndex();
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      medium.setLong(m + i, medium.getLong(m + i) | data.getLong(d + i));
    }
    for (; i < length; i++) {
      medium.setByte(m + i, medium.getByte(m + i) | data.getByte(d + i));
    }
    t.phase = PHASE_OR_WRITE;
    LogicalUnit lu = t.unit;
    lu.device.write(t.lba * lu.blockSize, medium, t.fua, t.io);
  }

  /** READ DEFECT DATA (10) / (12): a virtual medium has no defects; an empty list in the format asked for. */
  static void readDefectData(ScsiTask t, ByteBuf out) {
    byte[] c = t.cdb;
    boolean twelve = (c[0] & 0xFF) == 0xB7;
    int flags = (twelve ? c[1] : c[2]) & 0x1F; // REQ_PLIST, REQ_GLIST (the lists are valid, and empty), format
    out.writeByte(0);
    out.writeByte(flags);
    if (twelve) {
      out.writeShort(0); // generation code: not reported
      out.writeInt(0);   // defect list length
    } else {
      out.writeShort(0);
    }
  }

  private static void writeSame(ScsiTask t) {
    LogicalUnit lu = t.unit;
    int bs = lu.blockSize;
    ByteBuf block = t.dataOut;
    if (!t.noDataOutBuffer && (block == null || block.readableBytes() < bs)) {
      t.completeFailed(SenseReason.INVALID_FIELD_IN_CDB);
      return;
    }
    if (t.blocks == 0) {
      t.completeGood(); // zero blocks from the LBA after the last: nothing to the end of the medium
      return;
    }
    boolean zeros = t.noDataOutBuffer || isZero(block, block.readerIndex(), bs);
    if (t.unmapBit) {
      // UNMAP asks for the blocks to be unmapped (SBC-3 5.42: whatever the Data-Out holds); LBPRZ: they read as zeros
      t.phase = t.fua ? PHASE_THEN_FLUSH : PHASE_FLUSH;
      lu.device.unmap(t.lba * bs, t.blocks * bs, t.io);
      return;
    }
    if (zeros) {
      t.phase = t.fua ? PHASE_THEN_FLUSH : PHASE_FLUSH;
      if (lu.device.writeZeroes(t.lba * bs, t.blocks * bs, t.io)) {
        return;
      }
    }
    int chunkBlocks = (int) Math.min(t.blocks, WRITE_SAME_CHUNK_BYTES / bs);
    ByteBuf pattern = lu.alloc.directBuffer(chunkBlocks * bs, chunkBlocks * bs);
    for (int i = 0; i < chunkBlocks; i++) {
      if (zeros) {
        pattern.writeZero(bs);
      } else {
        pattern.writeBytes(block, block.readerIndex(), bs);
      }
    }
    t.scratch = pattern;
    t.cursor = t.lba;
    t.end = t.lba + t.blocks;
    t.phase = PHASE_WRITE_SAME;
    nextWriteSame(t);
  }

  private static void nextWriteSame(ScsiTask t) {
    if (t.cursor >= t.end) {
      t.completeGood();
      return;
    }
    int bs = t.unit.blockSize;
    int blocks = (int) Math.min(t.end - t.cursor, t.scratch.capacity() / bs);
    long offset = t.cursor * bs;
    t.cursor += blocks;
    t.scratch.setIndex(0, blocks * bs);
    t.unit.device.write(offset, t.scratch, t.fua, t.io);
  }

  private static void unmap(ScsiTask t) {
    LogicalUnit lu = t.unit;
    ByteBuf p = t.dataOut;
    if (t.dataOutLength == 0) {
      t.completeGood();
      return;
    }
    int available = p == null ? 0 : Math.min(p.readableBytes(), t.dataOutLength);
    if (available < 8) {
      t.completeFailed(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
      return;
    }
    int base = p.readerIndex();
    int descriptorBytes = Math.min(p.getUnsignedShort(base + 2), available - 8);
    int count = descriptorBytes / 16;
    if (count > lu.limits.maxUnmapDescriptors) {
      t.completeFailed(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
      return;
    }
    for (int i = 0; i < count; i++) {
      long lba = p.getLong(base + 8 + 16 * i);
      long blocks = p.getUnsignedInt(base + 16 + 16 * i);
      SenseReason r = CdbDecoder.range(lu, lba, blocks);
      if (r == null && blocks > lu.limits.maxUnmapBlocks) {
        r = SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
      }
      if (r != null) {
        t.completeFailed(r);
        return;
      }
    }
    t.cursor = 0;
    t.end = count;
    t.phase = PHASE_UNMAP;
    nextUnmap(t);
  }

  private static void nextUnmap(ScsiTask t) {
    ByteBuf p = t.dataOut;
    int bs = t.unit.blockSize;
    while (t.cursor < t.end) {
      int at = p.readerIndex() + 8 + 16 * (int) t.cursor++;
      long blocks = p.getUnsignedInt(at + 8);
      if (blocks != 0) {
        t.unit.device.unmap(p.getLong(at) * bs, blocks * bs, t.io);
        return;
      }
    }
    if (t.fua) {
      t.phase = PHASE_FLUSH; // WCE=0
      t.unit.device.flush(t.io);
      return;
    }
    t.completeGood();
  }

  static void ioComplete(ScsiTask t, IoStatus status) {
    if (status != IoStatus.OK) {
      SenseReason failure = failure(status, t.phase == PHASE_READ || t.phase == PHASE_VERIFY_READ
          || t.phase == PHASE_COMPARE_READ || t.phase == PHASE_OR_READ || t.phase == PHASE_PREFETCH_WHOLE
          || t.phase == PHASE_PREFETCH_PART);
      if (t.phase >= PHASE_COMPARE_READ && t.phase <= PHASE_ATOMIC_WRITE) {
        finishLocked(t, failure, 0);
      } else {
        t.completeFailed(failure);
      }
      return;
    }
    switch (t.phase) {
      case PHASE_READ:
      case PHASE_WRITE:
      case PHASE_FLUSH:
        t.completeGood();
        break;
      case PHASE_UNMAP:
        nextUnmap(t);
        break;
      case PHASE_THEN_FLUSH:
        t.phase = PHASE_FLUSH;
        t.unit.device.flush(t.io);
        break;
      case PHASE_PREFETCH_WHOLE:
      case PHASE_PREFETCH_PART:
        Prefetch.done(t);
        break;
      case PHASE_WRITE_SAME:
        nextWriteSame(t);
        break;
      case PHASE_VERIFY_READ: {
        long at = mismatch(t.scratch, t.dataOut, t.scratch.readableBytes());
        if (at < 0) {
          t.completeGood();
        } else {
          t.completeFailed(SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION, at, true);
        }
        break;
      }
      case PHASE_COMPARE_READ: {
        int length = t.scratch.readableBytes();
        long at = mismatch(t.scratch, t.dataOut, length);
        if (at >= 0) {
          finishLocked(t, SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION, at);
          return;
        }
        LogicalUnit lu = t.unit;
        ByteBuf data = t.dataOut;
        int start = data.readerIndex() + length;
        data.setIndex(start, start + length);
        t.phase = PHASE_COMPARE_WRITE;
        lu.device.write(t.lba * lu.blockSize, data, t.fua, t.io);
        break;
      }
      case PHASE_COMPARE_WRITE:
      case PHASE_OR_WRITE:
      case PHASE_ATOMIC_WRITE:
        finishLocked(t, null, 0);
        break;
      case PHASE_OR_READ:
        orAndWrite(t);
        break;
      default:
        throw new IllegalStateException("I/O completion in phase " + t.phase);
    }
  }

  static SenseReason failure(IoStatus status, boolean reading) {
    switch (status) {
      case NO_SPACE:
        return SenseReason.SPACE_ALLOCATION_FAILED_WRITE_PROTECT;
      case OUT_OF_RANGE:
        return SenseReason.LBA_OUT_OF_RANGE;
      case UNAVAILABLE:
        return SenseReason.LOGICAL_UNIT_NOT_READY;
      default:
        return reading ? SenseReason.UNRECOVERED_READ_ERROR : SenseReason.WRITE_ERROR;
    }
  }

  /** Offset of the first byte where {@code medium} differs from {@code expected}, or -1. */
  static long mismatch(ByteBuf medium, ByteBuf expected, int length) {
    int a = medium.readerIndex();
    int b = expected.readerIndex();
    for (int i = 0; i < length; i++) {
      if (medium.getByte(a + i) != expected.getByte(b + i)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean isZero(ByteBuf buf, int from, int length) {
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      if (buf.getLong(from + i) != 0) {
        return false;
      }
    }
    for (; i < length; i++) {
      if (buf.getByte(from + i) != 0) {
        return false;
      }
    }
    return true;
  }

  // ---- capacity and provisioning status (synchronous) ----

  static void readCapacity10(ScsiTask t, ByteBuf out) {
    LogicalUnit lu = t.unit;
    long last = lu.blockCount - 1;
    out.writeInt(last > 0xFFFF_FFFEL ? -1 : (int) last);
    out.writeInt(lu.blockSize);
  }

  static void readCapacity16(ScsiTask t, ByteBuf out) {
    LogicalUnit lu = t.unit;
    out.writeLong(lu.blockCount - 1);
    out.writeInt(lu.blockSize);
    out.writeByte(0);                                     // no protection
    out.writeByte(lu.limits.logicalPerPhysicalExponent);  // P_I_EXPONENT 0, LBPPBE
    out.writeByte(0x80 | 0x40);                           // LBPME, LBPRZ; LALBA 0
    out.writeByte(0);
    out.writeZero(16);
  }

  /** GET LBA STATUS: mapped / deallocated extents starting at the CDB's LBA, from the device. */
  static void getLbaStatus(ScsiTask t, ByteBuf out) {
    LogicalUnit lu = t.unit;
    BlockDevice device = lu.device;
    int bs = lu.blockSize;
    int room = Math.max(1, Math.min(GET_LBA_STATUS_MAX_DESCRIPTORS, (t.allocationLength - 8) / 16));
    int lengthIndex = out.writerIndex();
    out.writeInt(0);
    out.writeInt(0);
    long lba = t.lba;
    int descriptors = 0;
    while (lba < lu.blockCount && descriptors < room) {
      long offset = lba * bs;
      boolean mapped = device.isMapped(offset);
      long changeBlock = (device.nextMappingChange(offset) + bs - 1) / bs;
      long next = Math.min(lu.blockCount, Math.max(lba + 1, changeBlock));
      long count = Math.min(next - lba, 0xFFFF_FFFFL);
      out.writeLong(lba);
      out.writeInt((int) count);
      out.writeByte(mapped ? 0 : 1);
      out.writeZero(3);
      lba += count;
      descriptors++;
    }
    out.setInt(lengthIndex, 4 + 16 * descriptors);
  }
}
