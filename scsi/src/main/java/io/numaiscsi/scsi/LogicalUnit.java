package io.numaiscsi.scsi;

import io.netty.buffer.ByteBufAllocator;
import java.util.Objects;

/** One logical unit: a {@link BlockDevice} with its identity and SCSI state (modes, reservations, unit attentions). */
public final class LogicalUnit {
  static final int MAX_LUN = 16383;

  final int lun;
  final LunIdentity identity;
  final BlockDevice device;
  final int blockSize;
  final long blockCount;
  final BlockLimits limits;
  final ModePages modePages = new ModePages();
  final UnitAttentions unitAttentions = new UnitAttentions();
  final Reservations reservations = new Reservations(unitAttentions);
  final CompareAndWriteLock compareAndWriteLock = new CompareAndWriteLock();
  ByteBufAllocator alloc;
  /** Reads of at least this many bytes ask the device for its own memory (no copy) on any transport. */
  private int sharedReadMin = Integer.MAX_VALUE;

  public LogicalUnit(int lun, LunIdentity identity, BlockDevice device) {
    if (lun < 0 || lun > MAX_LUN) {
      throw new IllegalArgumentException("LUN must be 0.." + MAX_LUN + ": " + lun);
    }
    this.lun = lun;
    this.identity = Objects.requireNonNull(identity, "identity");
    this.device = Objects.requireNonNull(device, "device");
    this.blockSize = device.blockSize();
    if (blockSize != 512 && blockSize != 4096) {
      throw new IllegalArgumentException("block size must be 512 or 4096: " + blockSize);
    }
    this.blockCount = device.blockCount();
    if (blockCount <= 0) {
      throw new IllegalArgumentException("device has no blocks");
    }
    this.limits = new BlockLimits(blockSize, device.physicalBlockSize());
  }

  /**
   * Reads of at least {@code bytes} take the device's own memory ({@link BlockDevice#readShared}) even when the
   * transport copies it out itself (TCP): one copy fewer for large reads, where copying costs most. Set before the
   * unit serves; default never.
   */
  public void sharedReadMin(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("sharedReadMin " + bytes);
    }
    sharedReadMin = bytes;
  }

  int sharedReadMin() {
    return sharedReadMin;
  }

  public int lun() {
    return lun;
  }

  public LunIdentity identity() {
    return identity;
  }

  public BlockDevice device() {
    return device;
  }

  void attach(ByteBufAllocator allocator) {
    if (alloc != null) {
      throw new IllegalStateException("LUN " + lun + " already belongs to a target");
    }
    alloc = allocator;
  }

  /** SAM LOGICAL UNIT RESET effects: SPC-2 reservation released, mode pages back to defaults. */
  void reset(ItNexus requester) {
    reservations.reset();
    modePages.reset();
    // Every nexus learns of the reset, the requester included (libiscsi MultipathIO.Reset checks both paths).
    unitAttentions.postToAllExcept(SenseReason.BUS_DEVICE_RESET_FUNCTION_OCCURRED, null);
  }

  void nexusLost(ItNexus nexus) {
    reservations.nexusLost(nexus);
    unitAttentions.forget(nexus);
  }
}
