package io.numaiscsi.iser;

/**
 * The buffers one SCSI command advertised in its iSER header (RFC 7145 9.2): the Write STag and base offset
 * the target RDMA-Reads data-out from, the Read STag and base offset it RDMA-Writes data-in to. Base offsets
 * are absolute virtual addresses or zero-based tagged offsets (the CM private data says which); either way
 * the byte at transfer offset {@code o} lies at {@code base + o}, counted for writes from the first byte not
 * sent unsolicited. Pooled per connection.
 */
final class TaskBuffers {
    int itt;
    boolean writeValid;
    int writeStag;
    long writeBase;
    boolean readValid;
    int readStag;
    long readBase;
    int expectedLength;

    void set(
            int itt,
            boolean writeValid,
            int writeStag,
            long writeBase,
            boolean readValid,
            int readStag,
            long readBase,
            int expectedLength) {
        this.itt = itt;
        this.writeValid = writeValid;
        this.writeStag = writeStag;
        this.writeBase = writeBase;
        this.readValid = readValid;
        this.readStag = readStag;
        this.readBase = readBase;
        this.expectedLength = expectedLength;
    }

    /**
     * Remote address of data-out byte {@code offset} when the solicited part starts at {@code solicitedStart};
     * -1 when {@code [offset, offset + length)} is not inside the advertised write buffer.
     */
    long dataOutAddress(int offset, int length, int solicitedStart) {
        if (!writeValid
                || offset < solicitedStart
                || length < 0
                || (long) offset + length > Integer.toUnsignedLong(expectedLength)) {
            return -1;
        }
        return writeBase + (offset - solicitedStart);
    }

    /** Remote address of data-in byte 0 for {@code length} bytes; -1 when no read buffer holds them. */
    long dataInAddress(int length) {
        if (!readValid || length < 0 || Integer.toUnsignedLong(length) > Integer.toUnsignedLong(expectedLength)) {
            return -1;
        }
        return readBase;
    }
}
