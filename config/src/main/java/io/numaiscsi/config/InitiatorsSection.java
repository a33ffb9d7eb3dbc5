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

    private InitiatorsSection() {}

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
            Cursor previous = names.putIfAbsent(nameAt.text().toLowerCase(Locale.ROOT), nameAt);
            if (previous != null) {
                throw nameAt.error("duplicate initiator \"" + nameAt.text() + "\" (also " + previous.path()
                        + " at line " + previous.line() + ")");
            }
            out.add(readOne(f, secrets));
        }
        return out;
    }

    /** One entry ({@code name}, {@code chap}) whose fields are {@code f}. */
    static InitiatorDefinition readOne(Fields f, ChapSection.Secrets secrets) throws ConfigException {
        Cursor nameAt = f.required("name");
        String name = nameAt.text();
        String problem = IscsiNames.problem(name);
        if (problem != null) {
            throw nameAt.error(problem);
        }
        ChapCredentials chap = ChapSection.read(f, "chap", secrets);
        if (chap == null) {
            throw f.missing("chap", "is required");
        }
        return new InitiatorDefinition(name, chap);
    }

    static ChapCredentials discovery(Fields root, ChapSection.Secrets secrets) throws ConfigException {
        return ChapSection.read(root, DISCOVERY_KEY, secrets);
    }
}
