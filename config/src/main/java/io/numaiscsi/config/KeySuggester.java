package io.numaiscsi.config;

import java.util.Collection;
import java.util.Locale;

/** Finds the known key an administrator most likely meant. */
final class KeySuggester {

    private KeySuggester() {}

    /** The closest known key, or null when none is close enough to be a plausible typo. */
    static String suggest(String unknown, Collection<String> known) {
        String u = normalize(unknown);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = k.equals(u) ? 0 : distance(u, k);
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        int allowed = Math.max(1, Math.min(3, u.length() / 4));
        if (best != null && bestDistance <= allowed) {
            return best;
        }
        // "max-burst" for "max-burst-length": accept an unambiguous prefix.
        String prefixMatch = null;
        if (u.length() >= 4) {
            for (String k : known) {
                if (k.startsWith(u)) {
                    if (prefixMatch != null) {
                        return null;
                    }
                    prefixMatch = k;
                }
            }
        }
        return prefixMatch;
    }

    /** camelCase and snake_case to the kebab-case our keys use. */
    static String normalize(String key) {
        StringBuilder sb = new StringBuilder(key.length() + 4);
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isUpperCase(c) && i > 0 && Character.isLowerCase(key.charAt(i - 1))) {
                sb.append('-');
            }
            sb.append(c == '_' || c == ' ' ? '-' : c);
        }
        return sb.toString().toLowerCase(Locale.ROOT);
    }

    /** Levenshtein edit distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
