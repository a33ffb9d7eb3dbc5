package io.numaiscsi.session;

import java.util.Objects;

/**
 * The discovery and per-initiator CHAP accounts in force: replaced whole by the control path, read by each new login
 * (a session already logged in keeps what it proved).
 */
public final class CurrentChapAccounts {
    private volatile ChapAccounts accounts;

    public CurrentChapAccounts(ChapAccounts accounts) {
        this.accounts = Objects.requireNonNull(accounts, "accounts");
    }

    public ChapAccounts get() {
        return accounts;
    }

    public void replace(ChapAccounts now) {
        accounts = Objects.requireNonNull(now, "now");
    }
}
