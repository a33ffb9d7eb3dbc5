package io.numaiscsi.scsi;

/** Told once per {@link ScsiTarget#execute(ScsiTask)}, on any thread. */
public interface ScsiTaskListener {
    void taskComplete(ScsiTask task);
}
