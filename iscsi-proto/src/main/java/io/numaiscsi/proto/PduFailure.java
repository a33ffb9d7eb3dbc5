package io.numaiscsi.proto;

/**
 * Why {@link PduDecoder} stopped. Every failure leaves the byte stream unframed, so the decoder
 * discards all further input; the session answers (Reject where it can) and closes the connection.
 */
public enum PduFailure {
    /** Header digest mismatch: none of the lengths in the BHS can be trusted. */
    HEADER_DIGEST_ERROR,
    /** DataSegmentLength above the declared MaxRecvDataSegmentLength (RFC 7143 13.12). */
    DATA_SEGMENT_TOO_LONG,
    /** TotalAHSLength above the configured AHS limit. */
    AHS_TOO_LONG
}
