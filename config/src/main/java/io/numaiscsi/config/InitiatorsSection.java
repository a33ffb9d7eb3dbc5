package io.numaiscsi.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The {@code initiators:} list (per-initiator CHAP credentials) and the {@code discovery-chap:} section. */
final class InitiatorsSection {

    static final String KEY = "initiators";
    static final String DISCOVERY_KEY = "discovery-chap";
    static final List<String> KEYS = List.of("name", "chap");

    private InitiatorsSection() {
    }

    static List<InitiatorDefinition> read(Fields root, ChapSection.Secrets secrets) throws ConfigException {
        Cursor list = root.optional(KEY);
        if (list == null) {
            return List.of();
        }
        List<InitiatorDefinition> out = new ArrayList<>();
        Map<String, Cursor> names = new HashMap<>();
        for (Cursor item : list.list()) {
            Fields f = item.fields(KEYS);
            Cursor nameAt = f.required("name");
            String name = nameAt.text();
            String problem = IscsiNames.problem(name);
            if (problem != null) {
                throw nameAt.error(problem);
            }
            Cursor previous = names.putIfAbsent(name.toLowerCase(Locale.ROOT), nameAt);
            if (previous != null) {
                throw nameAt.error("duplicate initiator \"" + name + "\" (also " + previous.path() + " at line "
                        + previous.line() + ")");
            }
            ChapCredentials chap = ChapSection.read(f, "chap", secrets);
            if (chap == null) {
                throw f.missing("chap", "is required");
            }
            out.add(new InitiatorDefinition(name, chap));
        }
        return out;
    }

    static ChapCredentials discovery(Fields root, ChapSection.Secrets secrets) throws ConfigException {
        return ChapSection.read(root, DISCOVERY_KEY, secrets);
    }
}
