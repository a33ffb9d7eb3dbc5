package io.numaiscsi.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A target's {@code lun-maps:} list (LUN masking): which of the target's LUNs each initiator sees, and at which LUN
 * numbers.
 * <pre>
 * lun-maps:
 *   - initiators: [iqn.1994-05.com.redhat:db1, iqn.1994-05.com.redhat:db2]
 *     luns: [0, 1]                  # LUNs 0 and 1, at their own numbers
 *   - initiators: [iqn.1994-05.com.redhat:backup]
 *     luns: [{lun: 2, as: 0}]       # LUN 2, seen as LUN 0
 *   - initiators: ["*"]             # every initiator no other entry names
 *     luns: []
 * </pre>
 * Without the key every initiator allowed in sees every LUN. With it, an initiator sees the LUNs of the entry that
 * names it, else those of the {@code "*"} entry, else none. An initiator is named in one entry at most; within an
 * entry a LUN and a number appear once; every LUN named must be one of the target's.
 */
final class LunMapsSection {
    static final String KEY = "lun-maps";
    private static final List<String> KEYS = List.of("initiators", "luns");
    private static final List<String> MAPPED_KEYS = List.of("lun", "as");

    private LunMapsSection() {}

    /** The maps, or an empty list without the key; {@code luns} are the target's. */
    static List<LunMap> read(Fields target, List<LunDefinition> luns) throws ConfigException {
        Cursor at = target.optional(KEY);
        if (at == null) {
            return List.of();
        }
        Map<String, Cursor> named = new HashMap<>();
        List<LunMap> maps = new ArrayList<>();
        for (Cursor item : at.list()) {
            Fields f = item.fields(KEYS);
            List<String> initiators = new ArrayList<>();
            for (Cursor i : f.required("initiators").nonEmptyList("must name at least one initiator (or \"*\")")) {
                String name = i.text();
                if (!name.equals(LunMap.OTHERS)) {
                    String problem = IscsiNames.problem(name);
                    if (problem != null) {
                        throw i.error(problem);
                    }
                }
                Cursor previous = named.putIfAbsent(AccessList.normalizedName(name), i);
                if (previous != null) {
                    throw i.error("initiator " + name + " is in two LUN maps (also " + previous.path() + " at line "
                            + previous.line() + ")");
                }
                initiators.add(name);
            }
            maps.add(new LunMap(initiators, mapped(f.required("luns"), luns)));
        }
        return maps;
    }

    private static List<LunMap.Mapped> mapped(Cursor lunsAt, List<LunDefinition> luns) throws ConfigException {
        Map<Integer, Cursor> lunsSeen = new HashMap<>();
        Map<Integer, Cursor> numbersSeen = new HashMap<>();
        List<LunMap.Mapped> out = new ArrayList<>();
        for (Cursor item : lunsAt.list()) {
            Cursor lunAt;
            Cursor asAt;
            if (item.node() instanceof Node.Mapping) {
                Fields m = item.fields(MAPPED_KEYS);
                lunAt = m.required("lun");
                asAt = m.optional("as");
            } else {
                lunAt = item;
                asAt = null;
            }
            int lun = lunAt.integer(0, LunSection.MAX_LUN_ID);
            int as = asAt == null ? lun : asAt.integer(0, LunSection.MAX_LUN_ID);
            if (luns.stream().noneMatch(l -> l.id() == lun)) {
                throw lunAt.error("the target has no LUN " + lun);
            }
            once(lunsSeen, lun, lunAt, "LUN " + lun);
            once(numbersSeen, as, asAt == null ? lunAt : asAt, "LUN number " + as);
            out.add(new LunMap.Mapped(lun, as));
        }
        return out;
    }

    private static void once(Map<Integer, Cursor> seen, int key, Cursor at, String what) throws ConfigException {
        Cursor previous = seen.putIfAbsent(key, at);
        if (previous != null) {
            throw at.error(
                    what + " appears twice in this map (also " + previous.path() + " at line " + previous.line() + ")");
        }
    }

    /** Writes the maps back in the form {@link #read} takes. */
    static void write(List<LunMap> maps, YamlText y) {
        if (maps.isEmpty()) {
            return;
        }
        y.open(KEY);
        for (LunMap m : maps) {
            y.item().entry("initiators", YamlText.flowList(m.initiators()));
            List<String> luns = new ArrayList<>();
            for (LunMap.Mapped l : m.luns()) {
                luns.add(l.lun() == l.as() ? Integer.toString(l.lun()) : "{lun: " + l.lun() + ", as: " + l.as() + "}");
            }
            y.entry("luns", luns.toString()).close();
        }
        y.close();
    }
}
