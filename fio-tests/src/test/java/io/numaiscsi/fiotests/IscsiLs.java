package io.numaiscsi.fiotests;

/** How {@code iscsi-ls -s} (libiscsi 1.19) prints a disk LUN, to compare its output exactly. */
final class IscsiLs {

    private IscsiLs() {}

    /**
     * The size column: READ CAPACITY(10)'s last LBA times the block size (one block short of the
     * capacity), divided by 1024 while above 1024, at most four times.
     */
    static String sizeColumn(long lunBytes, int blockSize) {
        long size = (lunBytes / blockSize - 1) * blockSize;
        String units = " kMGT";
        int unit = 0;
        while (unit < 4 && size > 1024) {
            size /= 1024;
            unit++;
        }
        return "Size:" + size + units.charAt(unit);
    }

    static String diskLunLine(int lun, long lunBytes, int blockSize) {
        return String.format("Lun:%-4d Type:DIRECT_ACCESS (%s)", lun, sizeColumn(lunBytes, blockSize));
    }
}
