package io.numaiscsi.fiotests;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;

/** Where a test's initiators connect: one portal, one target name, one LUN. */
record IscsiTarget(String host, int port, String iqn, int lun) {

    static final String DEFAULT_IQN = "iqn.2026-11.io.numaiscsi:disk0";

    /** Parses {@code iscsi://HOST:PORT/IQN/LUN}. */
    static IscsiTarget parse(String url) {
        URI uri = URI.create(url);
        if (!"iscsi".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
            throw new IllegalArgumentException("not iscsi://HOST:PORT/IQN/LUN: " + url);
        }
        String[] path = uri.getPath().split("/");
        if (path.length != 3) {
            throw new IllegalArgumentException("not iscsi://HOST:PORT/IQN/LUN: " + url);
        }
        return new IscsiTarget(uri.getHost(), uri.getPort(), path[1], Integer.parseInt(path[2]));
    }

    /** {@code iscsi://HOST:PORT} for discovery. */
    String portalUrl() {
        return "iscsi://" + host + ":" + port;
    }

    /** {@code iscsi://HOST:PORT/IQN/LUN} as libiscsi parses it. */
    String lunUrl() {
        return portalUrl() + "/" + iqn + "/" + lun;
    }

    /** The LUN URL for fio's {@code filename=}: fio splits file names at ':', so each one is escaped. */
    String fioFilename() {
        return lunUrl().replace(":", "\\:");
    }

    /** Whether the portal accepts a TCP connection within half a second. */
    boolean portalAccepts() {
        return accepts(host, port);
    }

    /** Whether {@code host:port} accepts a TCP connection within half a second. */
    static boolean accepts(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
