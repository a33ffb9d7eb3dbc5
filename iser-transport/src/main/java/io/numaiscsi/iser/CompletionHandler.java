package io.numaiscsi.iser;

/** Receives the work completions {@link RdmaEndpoint#poll} reaps, one call each, on the polling thread. */
public interface CompletionHandler {
    /**
     * Handles one work completion.
     *
     * @param wrId the id the work request was posted with
     * @param status a {@link WorkCompletion} status
     * @param byteLength bytes received, for receive completions
     */
    void onCompletion(long wrId, int status, int byteLength);
}
