package io.numaiscsi.proto.login;

import io.numaiscsi.proto.Bhs;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Full-feature-phase Text Requests of one connection (RFC 7143 6.2, 11.10, 11.11): SendTargets, re-declaration of
 * MaxRecvDataSegmentLength, "Reject" for login-only keys and "NotUnderstood" for unknown ones. Requests split with the
 * C bit are reassembled; responses longer than the initiator's MaxRecvDataSegmentLength go out in pieces with the C
 * bit and a Target Transfer Tag, each continued by an empty Text Request carrying that tag. Pure: no I/O.
 */
public final class TextExchange {
    public static final int RESERVED_TAG = Bhs.RESERVED_TAG;
    static final int MAX_REQUEST_TEXT = 65536;
    private static final byte[] EMPTY = new byte[0];

    private final SessionParameters params;
    private final LoginContext context;
    private int initiatorMaxRecvDataSegmentLength;
    private final int transportLimit;
    private int nextTag = 1;
    private ByteArrayOutputStream requestText;
    private int requestTag = RESERVED_TAG;
    private byte[] pendingResponse;
    private int pendingOffset;
    private int pendingTag = RESERVED_TAG;

    public TextExchange(SessionParameters params, LoginContext context) {
        this(params, context, Integer.MAX_VALUE);
    }

    /** {@code transportLimit}: the largest data segment the transport can send (iSER: its send buffers). */
    public TextExchange(SessionParameters params, LoginContext context, int transportLimit) {
        this.params = Objects.requireNonNull(params, "params");
        this.context = Objects.requireNonNull(context, "context");
        this.transportLimit = transportLimit;
        this.initiatorMaxRecvDataSegmentLength = Math.min(params.initiatorMaxRecvDataSegmentLength(), transportLimit);
    }

    /** What we may send in one PDU now: the login value unless MaxRecvDataSegmentLength is re-declared (not iSER). */
    public int initiatorMaxRecvDataSegmentLength() {
        return initiatorMaxRecvDataSegmentLength;
    }

    public TextStep onRequest(
            boolean finalBit, boolean continueBit, int initiatorTaskTag, int targetTransferTag, byte[] data) {
        byte[] text = data == null ? EMPTY : data;
        if (finalBit && continueBit) {
            return reject();
        }
        if (requestText != null) {
            if (targetTransferTag != RESERVED_TAG && targetTransferTag != requestTag) {
                return reject();
            }
        } else if (targetTransferTag != RESERVED_TAG) {
            if (pendingResponse == null || targetTransferTag != pendingTag || text.length != 0 || continueBit) {
                return reject();
            }
            return nextChunk();
        } else {
            pendingResponse = null; // a new request (TTT reserved) ends any earlier exchange
            requestText = new ByteArrayOutputStream();
        }
        requestText.writeBytes(text);
        if (requestText.size() > MAX_REQUEST_TEXT) {
            return reject();
        }
        if (continueBit) {
            requestTag = newTag();
            return new TextStep(false, false, requestTag, EMPTY, false);
        }
        byte[] whole = requestText.toByteArray();
        requestText = null;
        requestTag = RESERVED_TAG;
        List<KeyValue> keys;
        try {
            keys = TextParameters.parse(whole, 0, whole.length);
        } catch (TextFormatException e) {
            return reject();
        }
        List<KeyValue> response = new ArrayList<>();
        for (KeyValue kv : keys) {
            answer(kv, response);
        }
        pendingResponse = TextParameters.encode(response);
        pendingOffset = 0;
        pendingTag = RESERVED_TAG;
        return nextChunk();
    }

    private void answer(KeyValue kv, List<KeyValue> response) {
        TextKey key = TextKey.byName(kv.key());
        if (key == null) {
            response.add(new KeyValue(kv.key(), KeyRules.NOT_UNDERSTOOD));
            return;
        }
        switch (key) {
            case SEND_TARGETS -> sendTargets(kv.value(), response);
            case MAX_RECV_DATA_SEGMENT_LENGTH -> {
                if (!KeyRules.inRange(key, kv.value())) {
                    response.add(new KeyValue(kv.key(), KeyRules.REJECT));
                } else if (!params.rdmaExtensions()) { // iSER: InitiatorRecvDataSegmentLength holds (RFC 7145 6)
                    initiatorMaxRecvDataSegmentLength =
                            (int) Math.min(KeyRules.parseNumber(kv.value()), transportLimit);
                }
            }
            case INITIATOR_ALIAS -> {} // declarative, nothing to answer
            default -> response.add(new KeyValue(kv.key(), KeyRules.REJECT)); // login-only key (RFC 7143 13: IO/LO)
        }
    }

    /** RFC 7143 13.3 and appendix C: "All" in discovery sessions only; "" or the session's own target otherwise. */
    private void sendTargets(String scope, List<KeyValue> response) {
        String asked = scope;
        if (params.sessionType() == SessionType.NORMAL) {
            if (!scope.isEmpty() && !scope.equals(params.targetName())) {
                response.add(new KeyValue(TextKey.SEND_TARGETS.wireName(), KeyRules.REJECT));
                return;
            }
            asked = params.targetName();
        }
        response.addAll(context.sendTargets(params.initiatorName(), asked));
    }

    private TextStep nextChunk() {
        int length = Math.min(initiatorMaxRecvDataSegmentLength, pendingResponse.length - pendingOffset);
        byte[] chunk = Arrays.copyOfRange(pendingResponse, pendingOffset, pendingOffset + length);
        pendingOffset += length;
        if (pendingOffset < pendingResponse.length) {
            pendingTag = newTag();
            return new TextStep(false, true, pendingTag, chunk, false);
        }
        pendingResponse = null;
        pendingTag = RESERVED_TAG;
        return new TextStep(true, false, RESERVED_TAG, chunk, false);
    }

    private int newTag() {
        int tag = nextTag++;
        if (nextTag == RESERVED_TAG) {
            nextTag = 1;
        }
        return tag;
    }

    private TextStep reject() {
        requestText = null;
        requestTag = RESERVED_TAG;
        pendingResponse = null;
        pendingTag = RESERVED_TAG;
        return new TextStep(false, false, RESERVED_TAG, EMPTY, true);
    }
}
