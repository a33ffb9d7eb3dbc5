package io.numaiscsi.proto.login;

/**
 * The Text Response to send (RFC 7143 11.11), or, when {@code reject} is set, a Reject PDU (reason protocol error)
 * instead of it.
 */
public record TextStep(boolean finalBit, boolean continueBit, int targetTransferTag, byte[] data, boolean reject) {}
