package io.numaiscsi.config;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The {@code targets:} list; each target's LUNs are read by {@link LunSection}. */
final class TargetsSection {

    static final String KEY = "targets";
    static final List<String> KEYS = List.of(
            "name",
            "alias",
            "allow",
            "allow-networks",
            "chap",
            "alua",
            SharedReservationsSection.KEY,
            "luns",
            LunMapsSection.KEY);
    /** The keys of a target that can change while it serves. */
    static final List<String> SETTINGS_KEYS = List.of("alias", "allow", "allow-networks", "chap", "lun-maps");

    static final String ALL = "ALL";
    /** RFC 7143 TargetAlias: text of up to 255 bytes. */
    static final int MAX_ALIAS_BYTES = 255;

    private TargetsSection() {}

    static List<TargetDefinition> read(Fields root, Path dataDir) throws ConfigException {
        return read(root, dataDir, new ChapSection.Secrets());
    }

    static List<TargetDefinition> read(Fields root, Path dataDir, ChapSection.Secrets secrets) throws ConfigException {
        return read(root.required(KEY).nonEmptyList("needs at least one target"), dataDir, secrets, false);
    }

    /** The targets of a list that may be empty (a gateway group's before its first target). */
    static List<TargetDefinition> readList(Fields root, Path dataDir, ChapSection.Secrets secrets)
            throws ConfigException {
        Cursor at = root.optional(KEY);
        return at == null ? List.of() : read(at.list(), dataDir, secrets, true);
    }

    private static List<TargetDefinition> read(
            List<Cursor> items, Path dataDir, ChapSection.Secrets secrets, boolean groupOwners) throws ConfigException {
        List<TargetDefinition> targets = new ArrayList<>();
        Map<String, Cursor> names = new HashMap<>();
        LunSection.BackingFiles files = new LunSection.BackingFiles();
        files.groupOwners = groupOwners;
        for (Cursor item : items) {
            Fields f = item.fields(KEYS);
            Cursor nameAt = f.required("name");
            String name = name(nameAt);
            Cursor previous = names.putIfAbsent(name.toLowerCase(Locale.ROOT), nameAt);
            if (previous != null) {
                throw nameAt.error("duplicate target name \"" + name + "\" (also " + previous.path() + " at line "
                        + previous.line() + ")");
            }
            String alias = alias(f);
            List<String> allow = allow(f);
            List<NetworkRange> networks = allowNetworks(f);
            ChapCredentials chap = ChapSection.read(f, "chap", secrets);
            AluaDefinition alua = AluaSection.read(f);
            SharedReservationsDefinition shared = SharedReservationsSection.read(f);
            List<LunDefinition> luns = LunSection.readAll(f, dataDir, files);
            targets.add(new TargetDefinition(
                    name, alias, allow, luns, chap, networks, alua, shared, LunMapsSection.read(f, luns)));
        }
        return targets;
    }

    /**
     * One target written on its own (an admin request), with its LUNs, checked as in a config file and against what
     * {@code running} serves: target names, CHAP secrets' directions, backing files.
     */
    static TargetDefinition readOne(Cursor item, TargetConfig running) throws ConfigException {
        Fields f = item.fields(KEYS);
        Cursor nameAt = f.required("name");
        String name = name(nameAt);
        for (TargetDefinition t : running.targets()) {
            if (t.name().equalsIgnoreCase(name)) {
                throw nameAt.error("target " + t.name() + " exists already");
            }
        }
        String alias = alias(f);
        List<String> allow = allow(f);
        List<NetworkRange> networks = allowNetworks(f);
        ChapCredentials chap = ChapSection.read(f, "chap", ChapSection.Secrets.of(running, null));
        AluaDefinition alua = AluaSection.read(f);
        SharedReservationsDefinition shared = SharedReservationsSection.read(f);
        LunSection.BackingFiles files = LunSection.BackingFiles.of(running.targets());
        files.groupOwners = running.group() != null;
        List<LunDefinition> luns = LunSection.readAll(f, running.daemon().dataDir(), files);
        return new TargetDefinition(
                name, alias, allow, luns, chap, networks, alua, shared, LunMapsSection.read(f, luns));
    }

    /**
     * New settings for a running target (alias, allow, allow-networks, chap, lun-maps; what is absent takes its default, as in
     * a file), its LUNs and ALUA kept; CHAP secrets checked against the other targets'.
     */
    static TargetDefinition readSettings(Cursor item, TargetDefinition current, TargetConfig running)
            throws ConfigException {
        Fields f = item.fields(SETTINGS_KEYS);
        String alias = alias(f);
        List<String> allow = allow(f);
        List<NetworkRange> networks = allowNetworks(f);
        ChapCredentials chap = ChapSection.read(f, "chap", ChapSection.Secrets.of(running, current.name()));
        return new TargetDefinition(
                current.name(),
                alias,
                allow,
                current.luns(),
                chap,
                networks,
                current.alua(),
                current.sharedReservations(),
                LunMapsSection.read(f, current.luns()));
    }

    private static String name(Cursor nameAt) throws ConfigException {
        String name = nameAt.text();
        String problem = IscsiNames.problem(name);
        if (problem != null) {
            throw nameAt.error(problem);
        }
        return name;
    }

    private static String alias(Fields f) throws ConfigException {
        String alias = f.text("alias");
        if (alias == null) {
            return null;
        }
        if (alias.getBytes(StandardCharsets.UTF_8).length > MAX_ALIAS_BYTES) {
            throw f.optional("alias").error("is longer than " + MAX_ALIAS_BYTES + " bytes");
        }
        if (alias.chars().anyMatch(Character::isISOControl)) {
            throw f.optional("alias").error("contains a control character");
        }
        return alias;
    }

    /** Source networks allowed to log in; absent means any. */
    private static List<NetworkRange> allowNetworks(Fields f) throws ConfigException {
        Cursor c = f.optional("allow-networks");
        if (c == null) {
            return List.of();
        }
        List<NetworkRange> out = new ArrayList<>();
        for (Cursor item : c.nonEmptyList("must not be empty (leave the key out to allow any network)")) {
            NetworkRange n;
            try {
                n = NetworkRange.parse(item.text());
            } catch (IllegalArgumentException e) {
                throw item.error(e.getMessage());
            }
            if (out.contains(n)) {
                throw item.error("duplicate network " + n);
            }
            out.add(n);
        }
        return out;
    }

    /** Allowed initiator names; [ALL] (the default) becomes the empty list. */
    private static List<String> allow(Fields f) throws ConfigException {
        Cursor c = f.optional("allow");
        if (c == null) {
            return List.of();
        }
        List<Cursor> items = c.nonEmptyList("must not be empty (use [ALL] to allow any initiator)");
        List<String> names = new ArrayList<>(items.size());
        for (Cursor item : items) {
            String name = item.text();
            if (name.equals(ALL)) {
                if (items.size() > 1) {
                    throw item.error("ALL allows any initiator; it cannot be combined with initiator names");
                }
                return List.of();
            }
            String problem = IscsiNames.problem(name);
            if (problem != null) {
                throw item.error(name.equalsIgnoreCase(ALL) ? "write ALL in capitals to allow any initiator" : problem);
            }
            for (String earlier : names) {
                if (earlier.equalsIgnoreCase(name)) {
                    throw item.error("duplicate initiator name \"" + name + "\"");
                }
            }
            names.add(name);
        }
        return names;
    }
}
