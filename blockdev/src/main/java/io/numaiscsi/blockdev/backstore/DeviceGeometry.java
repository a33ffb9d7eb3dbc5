package io.numaiscsi.blockdev.backstore;

import java.io.IOException;
import java.nio.file.Path;

/**
 * What a block device says about itself (BLKGETSIZE64, BLKSSZGET, BLKPBSZGET), and the LUN a configuration may carve
 * from it: a block size of 512 or 4096 no smaller than the device's logical block (the device cannot write less), a
 * size no larger than the device. Messages name the configuration field to change.
 *
 * @param sizeBytes the device's size
 * @param logicalBlockSize the smallest unit the device reads and writes
 * @param physicalBlockSize the unit it writes atomically without read-modify-write (0: not reported)
 */
record DeviceGeometry(long sizeBytes, int logicalBlockSize, int physicalBlockSize) {

    /** The LUN's logical block size: {@code configured}, or the device's when 0. */
    int blockSize(Path device, int configured) throws IOException {
        if (configured == 0) {
            if (logicalBlockSize == 512 || logicalBlockSize == 4096) {
                return logicalBlockSize;
            }
            if (logicalBlockSize < 4096 && 4096 % logicalBlockSize == 0) {
                throw new IOException(device + " has logical blocks of " + logicalBlockSize
                        + " bytes, a LUN's are 512 or " + "4096 bytes: set block-size: 4096");
            }
            throw new IOException(device + " has logical blocks of " + logicalBlockSize
                    + " bytes; a LUN's are 512 or 4096" + " bytes, so it cannot be exported");
        }
        if (configured < logicalBlockSize) {
            throw new IOException(
                    "block-size " + configured + " is smaller than the logical block size of " + device + " ("
                            + logicalBlockSize + " bytes): the device cannot write a " + configured
                            + "-byte block; use block-size: "
                            + logicalBlockSize + " or leave block-size out");
        }
        if (configured % logicalBlockSize != 0) {
            throw new IOException("block-size " + configured + " is not a multiple of the logical block size of "
                    + device + " (" + logicalBlockSize + " bytes)");
        }
        return configured;
    }

    /** The LUN's size: {@code configured}, or the whole device (whole blocks of {@code blockSize}) when 0. */
    long lunSize(Path device, long configured, int blockSize) throws IOException {
        if (configured == 0) {
            long whole = sizeBytes / blockSize * blockSize;
            if (whole == 0) {
                throw new IOException(
                        device + " is " + sizeBytes + " bytes, less than one block of " + blockSize + " bytes");
            }
            return whole;
        }
        if (configured > sizeBytes) {
            throw new IOException("size " + configured + " bytes is more than " + device + " holds (" + sizeBytes
                    + " bytes): leave size out to export all of it");
        }
        if (configured % blockSize != 0) {
            throw new IOException("size " + configured + " bytes is not a multiple of block-size " + blockSize
                    + " (the " + "block size of " + device + ")");
        }
        return configured;
    }

    /**
     * The physical block size to report for LUN blocks of {@code blockSize}: the device's when it is a power-of-two
     * multiple of the LUN block, else the LUN block (one logical block per physical block).
     */
    int reportedPhysicalBlockSize(int blockSize) {
        int p = physicalBlockSize;
        return p > blockSize && p % blockSize == 0 && Integer.bitCount(p / blockSize) == 1 ? p : blockSize;
    }
}
