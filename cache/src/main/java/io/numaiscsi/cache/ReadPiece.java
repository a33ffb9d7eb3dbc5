package io.numaiscsi.cache;

/**
 * The piece of one block a cache request reads, bytes [from, to) of {@code block} ({@code blockBytes} of it inside the
 * device), and what the request knows of it. One per request, set again for each of its blocks.
 */
final class ReadPiece {
    long block;
    int from;
    int to;
    int blockBytes;
    /** Part of a sequential stream: a fill reads the rest of the block ahead. */
    boolean sequential;
    /** The admission let this block in already (the device's one-block path), so it is filled without asking again. */
    boolean admitted;

    ReadPiece of(long block, int from, int to, int blockBytes) {
        this.block = block;
        this.from = from;
        this.to = to;
        this.blockBytes = blockBytes;
        return this;
    }

    ReadPiece reading(boolean sequential, boolean admitted) {
        this.sequential = sequential;
        this.admitted = admitted;
        return this;
    }

    boolean whole() {
        return from == 0 && to == blockBytes;
    }
}
