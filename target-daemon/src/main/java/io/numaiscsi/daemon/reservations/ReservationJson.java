package io.numaiscsi.daemon.reservations;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaiscsi.scsi.ItNexus;
import io.numaiscsi.scsi.ReservationState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A LUN's persistent reservations as JSON: the registrations with their I_T nexus (initiator name, ISID, target
 * portal group tag) and key, the reservation's type and holder, PRgeneration. Keys and ISIDs are hex strings, so
 * nothing depends on how a reader handles 64-bit numbers.
 * <pre>
 * {"format": 1, "target": "iqn...", "lun": 0, "aptpl": true, "generation": 3,
 *  "registrations": [{"initiator": "iqn...", "isid": "0x800000000001", "tpgt": 1, "key": "0x00000000000000aa"}],
 *  "reservation": {"type": 1, "initiator": "iqn...", "isid": "0x800000000001", "tpgt": 1}}
 * </pre>
 */
final class ReservationJson {
    static final int FORMAT = 1;
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ReservationJson() {}

    static byte[] encode(String target, int lun, ReservationState s) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("format", FORMAT);
        root.put("target", target);
        root.put("lun", lun);
        root.put("aptpl", s.aptpl());
        root.put("generation", Integer.toUnsignedLong(s.generation()));
        ArrayNode registrations = root.putArray("registrations");
        for (ReservationState.Registration r : s.registrations()) {
            ObjectNode n = nexus(registrations.addObject(), r.nexus());
            n.put("key", String.format(Locale.ROOT, "0x%016x", r.key()));
        }
        if (s.type() == 0) {
            root.putNull("reservation");
        } else {
            ObjectNode reservation = root.putObject("reservation");
            reservation.put("type", s.type());
            if (s.holder() != null) {
                nexus(reservation, s.holder());
            }
        }
        try {
            return MAPPER.writeValueAsString(root).concat("\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of strings and numbers did not serialise", e);
        }
    }

    private static ObjectNode nexus(ObjectNode n, ItNexus nexus) {
        n.put("initiator", nexus.initiatorName());
        n.put("isid", String.format(Locale.ROOT, "0x%012x", nexus.isid()));
        n.put("tpgt", nexus.targetPortalGroupTag());
        return n;
    }

    /**
     * The state {@code text} holds for {@code target}'s LUN {@code lun}.
     *
     * @throws IllegalArgumentException it is not such a state; the message says what is wrong
     */
    static ReservationState decode(byte[] text, String target, int lun) {
        JsonNode root;
        try {
            root = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        if (integer(root, "format", 0, Integer.MAX_VALUE) != FORMAT) {
            throw new IllegalArgumentException("format " + root.get("format") + ", this daemon reads format " + FORMAT);
        }
        if (!target.equalsIgnoreCase(text(root, "target")) || integer(root, "lun", 0, Integer.MAX_VALUE) != lun) {
            throw new IllegalArgumentException("it is the state of " + root.get("target") + " LUN " + root.get("lun")
                    + ", not of " + target + " LUN " + lun);
        }
        JsonNode aptpl = root.get("aptpl");
        if (aptpl == null || !aptpl.isBoolean()) {
            throw new IllegalArgumentException("\"aptpl\" must be true or false");
        }
        int generation = (int) integer(root, "generation", 0, 0xFFFF_FFFFL);
        JsonNode list = root.get("registrations");
        if (list == null || !list.isArray()) {
            throw new IllegalArgumentException("\"registrations\" must be a list");
        }
        List<ReservationState.Registration> registrations = new ArrayList<>();
        for (JsonNode r : list) {
            registrations.add(new ReservationState.Registration(nexus(r, target), hex(r, "key", 16)));
        }
        JsonNode reservation = root.get("reservation");
        int type = 0;
        ItNexus holder = null;
        if (reservation != null && !reservation.isNull()) {
            type = (int) integer(reservation, "type", 1, 15);
            holder = reservation.has("initiator") ? nexus(reservation, target) : null;
        }
        return new ReservationState(aptpl.booleanValue(), generation, registrations, type, holder);
    }

    private static ItNexus nexus(JsonNode n, String target) {
        if (!n.isObject()) {
            throw new IllegalArgumentException("a registration or holder that is not an object: " + n);
        }
        return new ItNexus(text(n, "initiator"), hex(n, "isid", 12), target, (int) integer(n, "tpgt", 0, 0xFFFF));
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new IllegalArgumentException("\"" + field + "\" must be a non-empty string in " + n);
        }
        return v.asText();
    }

    private static long integer(JsonNode n, String field, long min, long max) {
        JsonNode v = n.get(field);
        if (v == null || !v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < min || v.asLong() > max) {
            throw new IllegalArgumentException("\"" + field + "\" must be an integer " + min + ".." + max + " in " + n);
        }
        return v.asLong();
    }

    /** A "0x..." string of 1 to {@code digits} hex digits. */
    private static long hex(JsonNode n, String field, int digits) {
        String s = text(n, field);
        if (!s.matches("0x[0-9a-fA-F]{1," + digits + "}")) {
            throw new IllegalArgumentException("\"" + field + "\" must be 0x and 1 to " + digits + " hex digits: " + s);
        }
        return Long.parseUnsignedLong(s.substring(2), 16);
    }
}
