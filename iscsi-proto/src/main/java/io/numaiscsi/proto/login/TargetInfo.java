package io.numaiscsi.proto.login;

/** A target as the login needs it: its iSCSI name and optional alias (null or empty: no TargetAlias sent). */
public record TargetInfo(String name, String alias) {}
