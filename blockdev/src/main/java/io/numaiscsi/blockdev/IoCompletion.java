package io.numaiscsi.blockdev;

/** Completion of one {@link BlockDevice} call. Implemented by reusable per-task objects: no lambda per I/O. */
public interface IoCompletion {
    void ioComplete(IoStatus status);
}
