package io.numaiscsi.admin;

import java.util.LinkedHashMap;
import java.util.Map;

/** The exit codes of numa-iscsi-admin; their descriptions are the "Exit codes" of every --help. */
enum Exit {
    DONE(0, "done"),
    REFUSED(1, "the daemon refused the request (its reason on stderr)"),
    USAGE(2, "usage error: an unknown command or option, a value missing or malformed, a file that cannot be read"),
    UNREACHABLE(3, "no daemon answers on the socket (not running, another socket, or not this user's)");

    final int code;
    final String meaning;

    Exit(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    /** For picocli's usage help: code to meaning. */
    static Map<String, String> list() {
        Map<String, String> list = new LinkedHashMap<>();
        for (Exit e : values()) {
            list.put(String.valueOf(e.code), e.meaning);
        }
        return list;
    }
}
