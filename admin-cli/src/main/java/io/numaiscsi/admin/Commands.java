package io.numaiscsi.admin;

import static io.numaiscsi.admin.Group.oneOf;
import static io.numaiscsi.admin.Group.together;
import static io.numaiscsi.admin.Param.Kind.ABSOLUTE_PATH;
import static io.numaiscsi.admin.Param.Kind.CLEAR;
import static io.numaiscsi.admin.Param.Kind.ENTRIES;
import static io.numaiscsi.admin.Param.Kind.FLAG;
import static io.numaiscsi.admin.Param.Kind.JSON_VALUE;
import static io.numaiscsi.admin.Param.Kind.LIST;
import static io.numaiscsi.admin.Param.Kind.NUMBER;
import static io.numaiscsi.admin.Param.Kind.SECRET_FILE;
import static io.numaiscsi.admin.Param.Kind.TEXT;
import static io.numaiscsi.admin.Param.flag;
import static io.numaiscsi.admin.Param.option;
import static io.numaiscsi.admin.Param.positional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.List;

/**
 * The subcommands of numa-iscsi-admin, one entry each: its name, the daemon's JSON-RPC method it calls, its
 * parameters with the request keys they fill, and what it prints. The daemon checks every value with the config
 * file's rules, so a key here is spelt as in the config file and nothing is checked twice.
 */
final class Commands {
    private static final Param TARGET = positional(0, "TARGET", TEXT, "target", "the target's IQN");
    private static final Param LUN_ID =
            option("--id", "N", NUMBER, "id", "LUN number").required();
    private static final String SECRET_FROM = "file holding its secret ('-': standard input)";

    /** Every key of a config file's LUN entry but the test-only inject-* ones (target-create --lun takes those). */
    private static final Member[] LUN_KEYS = {
        option("--id", "N", NUMBER, "lun/id", "LUN number, 0 to 16383").required(),
        option("--backing", "TYPE", TEXT, "lun/backing", "file, ram, block, rbd or null (default: file)"),
        option(
                "--size",
                "SIZE",
                TEXT,
                "lun/size",
                "size, e.g. 10G; required for file, ram and null; block: the "
                        + "device's unless given; rbd: the image's, not given"),
        option(
                "--path",
                "PATH",
                TEXT,
                "lun/path",
                "file: the backing file (relative: in the daemon's data "
                        + "directory); block: the device, e.g. /dev/sdb"),
        option("--block-size", "BYTES", NUMBER, "lun/block-size", "512 or 4096 (block: the device's logical block)"),
        option(
                "--physical-block-size",
                "BYTES",
                NUMBER,
                "lun/physical-block-size",
                "the physical block initiators " + "are told, e.g. 4096 on 512-byte blocks"),
        flag("--read-only", FLAG, "lun/read-only", "write-protected"),
        option(
                "--soft-threshold",
                "PERCENT",
                TEXT,
                "lun/soft-threshold",
                "file, ram: the thin provisioning soft " + "threshold, e.g. 80%%"),
        option("--serial", "TEXT", TEXT, "lun/serial", "unit serial number (default: derived from target and id)"),
        option("--image", "NAME", TEXT, "lun/image", "rbd: the RBD image, which must exist (required for rbd)"),
        option("--pool", "POOL", TEXT, "lun/pool", "rbd: its Ceph pool (default: rbd)"),
        option(
                "--ceph-conf",
                "FILE",
                TEXT,
                "lun/ceph-conf",
                "rbd: the cluster's ceph.conf (default: "
                        + "/etc/ceph/ceph.conf; relative: in the daemon's data directory)"),
        option("--rbd-user", "ID", TEXT, "lun/rbd-user", "rbd: the Ceph client id (default: admin)"),
        option(
                "--keyring",
                "FILE",
                TEXT,
                "lun/keyring",
                "rbd: that client's keyring (default: the one ceph.conf "
                        + "names; relative: in the daemon's data directory)"),
        option(
                "--rbd-timeout",
                "DURATION",
                TEXT,
                "lun/rbd-timeout",
                "rbd: 1s to 300s for connecting and each I/O " + "(default: 20s)"),
        flag(
                "--numa-cache",
                FLAG,
                "lun/numa-cache",
                "rbd: behind the NUMA cache (only for an image nothing else " + "writes)"),
    };

    static final List<Subcommand> ALL = List.of(
            Subcommand.of("ls", "target.list", "Targets, their LUNs and sessions, as a tree.")
                    .fetch(Commands::targetsAndSessions)
                    .prints(TreeView::print),
            Subcommand.of(
                            "status",
                            "daemon.status",
                            "Portals, counts of targets, LUNs and sessions, the event model and " + "cache.")
                    .prints(Views::fields),
            Subcommand.of("sessions", "session.list", "Sessions with initiator, address and negotiated parameters.")
                    .prints(Views::sessions),
            Subcommand.of(
                            "target-create",
                            "target.create",
                            "Creates a target with its LUNs; initiators can log in at " + "once.")
                    .with(
                            positional(0, "TARGET", TEXT, "target/name", "the new target's IQN"),
                            option(
                                            "--lun",
                                            "KEY=VALUE,...",
                                            ENTRIES,
                                            "target/luns",
                                            "a LUN as a config file's LUN keys, e.g. "
                                                    + "id=0,backing=ram,size=1G or id=1,backing=file,path=d1.img,size=10G; repeatable")
                                    .required(),
                            option("--alias", "ALIAS", TEXT, "target/alias", "TargetAlias"),
                            option(
                                    "--allow",
                                    "IQN",
                                    LIST,
                                    "target/allow",
                                    "an initiator allowed to log in; repeatable (default: " + "any)"),
                            option(
                                    "--allow-network",
                                    "CIDR",
                                    LIST,
                                    "target/allow-networks",
                                    "a source network allowed; " + "repeatable (default: any)"),
                            chap("target/chap", "--chap-user", "--chap-secret-file"))
                    .says("created {target} with {luns} LUN(s)"),
            Subcommand.of(
                            "target-set",
                            "target.set",
                            "Changes a target's alias, allowed initiators and networks, "
                                    + "CHAP or LUN maps; new logins follow at once, --force asks the sessions the new rules refuse to log out.")
                    .with(
                            TARGET,
                            oneOf(
                                    option("--alias", "ALIAS", TEXT, "alias", "new TargetAlias"),
                                    flag("--no-alias", CLEAR, "alias", "remove the alias")),
                            option("--allow", "IQN", LIST, "allow", "allowed initiators (replaces the list; ALL: any)"),
                            oneOf(
                                    option(
                                            "--allow-network",
                                            "CIDR",
                                            LIST,
                                            "allow-networks",
                                            "allowed networks (replaces the " + "list)"),
                                    flag("--any-network", CLEAR, "allow-networks", "allow any source network")),
                            oneOf(
                                    chap("chap", "--chap-user", "--chap-secret-file"),
                                    flag("--no-chap", CLEAR, "chap", "no CHAP from now on")),
                            oneOf(
                                    option(
                                            "--lun-maps",
                                            "JSON",
                                            JSON_VALUE,
                                            "lun-maps",
                                            "which LUNs each initiator sees (LUN "
                                                    + "masking), as the config file's lun-maps in JSON, e.g. [{\"initiators\": "
                                                    + "[\"iqn.2026-11.com.example:db\"], \"luns\": [0, {\"lun\": 2, \"as\": 1}]}]"),
                                    flag("--no-lun-maps", CLEAR, "lun-maps", "every initiator sees every LUN")),
                            flag(
                                    "--force",
                                    FLAG,
                                    "force",
                                    "ask the sessions the new rules refuse to log out (all with a CHAP " + "change)"))
                    .prints(Views::targetSet),
            Subcommand.of(
                            "target-delete",
                            "target.delete",
                            "Deletes a target and its LUNs (their stores are flushed and "
                                    + "closed); refused while sessions are logged in, unless --force asks them to log out.")
                    .with(
                            TARGET,
                            flag(
                                    "--force",
                                    FLAG,
                                    "force",
                                    "delete it even with sessions logged in, asking them to log out"))
                    .says("deleted {target}; {sessions_asked_to_log_out} session(s) asked to log out"),
            Subcommand.of(
                            "session-logout",
                            "session.logout",
                            "Asks a session's initiator to log out (an iSCSI "
                                    + "Asynchronous Message; disconnected if it has not within 5 s); --force disconnects it now.")
                    .with(
                            positional(0, "TSIH", NUMBER, "tsih", "the session, as 'sessions' lists it"),
                            flag("--force", FLAG, "force", "close the connection now"))
                    .prints(Views::logout),
            Subcommand.of(
                            "lun-add",
                            "lun.add",
                            "Adds a LUN to a running target; its sessions see it at once (REPORTED "
                                    + "LUNS DATA HAS CHANGED). It takes the keys of a config file's LUN entry, checked by the same rules.")
                    .with(TARGET)
                    .with(LUN_KEYS)
                    .says("added LUN {id} to {target}"),
            Subcommand.of(
                            "lun-remove",
                            "lun.remove",
                            "Removes a LUN from a running target; its store is flushed and "
                                    + "closed once its commands in flight complete.")
                    .with(TARGET, LUN_ID)
                    .says("removed LUN {id} from {target}"),
            Subcommand.of(
                            "lun-resize",
                            "lun.resize",
                            "Grows a LUN of a running target; its sessions hear CAPACITY DATA "
                                    + "HAS CHANGED and READ CAPACITY reports the new size. Set the new size in the config file too.")
                    .with(
                            TARGET,
                            LUN_ID,
                            option(
                                            "--size",
                                            "SIZE",
                                            TEXT,
                                            "size",
                                            "the new size, e.g. 2G; larger than now (LUNs only grow)")
                                    .required())
                    .says("resized LUN {id} of {target} to {size} bytes"),
            Subcommand.of("portal-list", "portal.list", "The portals listening now: address, transport, bound port.")
                    .prints(Views::portals),
            Subcommand.of(
                            "portal-add",
                            "portal.add",
                            "Listens on one more iSCSI/TCP portal; discovery reports it at "
                                    + "once. iSER portals need a restart.")
                    .with(positional(0, "ADDR", TEXT, "portal", "host:port, e.g. 127.0.0.1:3261"))
                    .says("listening on {portal}"),
            Subcommand.of(
                            "portal-remove",
                            "portal.remove",
                            "Stops listening on a TCP portal; sessions that came in "
                                    + "through it go on. The last portal cannot be removed.")
                    .with(positional(0, "ADDR", TEXT, "portal", "the portal, as portal-list shows it"))
                    .says("stopped listening on {portal}; {connections_kept} connection(s) through it go on"),
            Subcommand.of(
                            "chap-list",
                            "chap.list",
                            "The CHAP users of discovery and of single initiators (no secrets).")
                    .prints(Views::chapList),
            Subcommand.of(
                            "chap-set",
                            "chap.set",
                            "Sets or removes the CHAP of discovery sessions or of one initiator; "
                                    + "new logins use it at once, sessions logged in go on.")
                    .with(
                            oneOf(
                                            flag("--discovery", FLAG, "discovery", "the CHAP discovery sessions need"),
                                            option(
                                                    "--initiator",
                                                    "NAME",
                                                    TEXT,
                                                    "initiator",
                                                    "this initiator's own CHAP, in place of its " + "targets'"))
                                    .required(),
                            oneOf(
                                            chap("chap", "--user", "--secret-file")
                                                    .required(),
                                            flag(
                                                    "--none",
                                                    CLEAR,
                                                    "chap",
                                                    "no CHAP: discovery open, or the initiator back to its targets' "
                                                            + "CHAP"))
                                    .required())
                    .finish(Commands::discoveryOrInitiator)
                    .prints(Views::chapSet),
            Subcommand.of(
                            "save",
                            "config.save",
                            "Writes the running configuration (LUNs added or removed through the API "
                                    + "included) to the daemon's --config file, or to PATH; a SIGHUP or restart then keeps it. The file "
                                    + "replaced is kept as FILE.bak.")
                    .with(positional(0, "PATH", ABSOLUTE_PATH, "path", "another file to write")
                            .optional())
                    .says("saved the running configuration ({targets} targets, {luns} LUNs) to {path}"),
            Subcommand.of(
                            "cache",
                            "cache.status",
                            "The NUMA cache: each node's pool, and per LUN what it holds and its hit "
                                    + "ratio (hits / (hits + misses + bypasses)).")
                    .prints(Views::cache),
            Subcommand.of(
                            "threads",
                            "thread.list",
                            "The event threads: node, CPUs, commands, bytes, CPU time and their " + "LUNs.")
                    .prints(Views::threads),
            Subcommand.of(
                            "group-status",
                            "group.status",
                            "The gateway group this gateway is a member of: its members "
                                    + "with their health and configuration version, and each LUN's owner and the member serving it now.")
                    .prints(Views::groupStatus),
            Subcommand.of(
                            "group-move",
                            "group.move",
                            "Moves a LUN of the gateway group to another member: the owner lets "
                                    + "it go and the member takes it (fencing the owner if it has not within 10 s); initiators follow "
                                    + "through ALUA.")
                    .with(
                            TARGET,
                            option("--lun", "N", NUMBER, "lun", "LUN number").required(),
                            option("--to", "MEMBER", TEXT, "member", "the member that serves it from now")
                                    .required())
                    .prints(Views::groupChange),
            Subcommand.of(
                            "group-rebalance",
                            "group.rebalance",
                            "Spreads the gateway group's LUNs evenly over the members "
                                    + "that are up, moving as few as it can (a member that came back gets LUNs only this way).")
                    .prints(Views::groupChange),
            Subcommand.of(
                            "group-member-remove",
                            "group.member-remove",
                            "Takes a member out of the gateway group; the "
                                    + "LUNs it owned go to the others, and it serves none of the group's targets until it starts again.")
                    .with(positional(0, "MEMBER", TEXT, "member", "the member's name"))
                    .prints(Views::groupChange),
            Subcommand.of(
                            "group-restore",
                            "group.restore",
                            "Writes the configuration this member serves back over the "
                                    + "gateway group's, after the group's object was damaged (the members refuse a corrupt one).")
                    .prints(Views::groupChange),
            Subcommand.of("log-level", "log.level", "Sets the log level, of the whole daemon or of one logger.")
                    .with(
                            positional(0, "LEVEL", TEXT, "level", "error, warn, info, debug or trace"),
                            option(
                                    "--logger",
                                    "NAME",
                                    TEXT,
                                    "logger",
                                    "a logger name (a class or package); default: all"))
                    .says("{logger}: {was} -> {level}"));

    private Commands() {}

    /**
     * A config file's CHAP mapping at {@code at}: the user the initiator sends and its secret, and for mutual CHAP the
     * user and secret the target answers with. Secrets are read from files, never taken on the command line.
     */
    private static Group chap(String at, String userOption, String secretOption) {
        return together(
                option(userOption, "USER", TEXT, at + "/username", "CHAP user name the initiator must send"),
                option(secretOption, "FILE", SECRET_FILE, at + "/secret", SECRET_FROM),
                option(
                        "--mutual-user",
                        "USER",
                        TEXT,
                        at + "/mutual-username",
                        "user name the target answers mutual " + "CHAP with"),
                option(
                        "--mutual-secret-file",
                        "FILE",
                        SECRET_FILE,
                        at + "/mutual-secret",
                        "file holding the target's " + "secret"));
    }

    /** ls: both listings in one answer, for one tree. */
    private static JsonNode targetsAndSessions(AdminClient client, String method, ObjectNode params)
            throws IOException, AdminClient.Refused {
        ObjectNode both = JsonNodeFactory.instance.objectNode();
        both.set("targets", client.call(method, params));
        both.set("sessions", client.call("session.list", JsonNodeFactory.instance.objectNode()));
        return both;
    }

    /** chap.set takes {@code {"discovery": CHAP}} or {@code {"initiator": NAME, "chap": CHAP}}. */
    private static ObjectNode discoveryOrInitiator(ObjectNode params) {
        if (params.remove("discovery") != null) {
            params.set("discovery", params.remove("chap"));
        }
        return params;
    }
}
