package io.numaiscsi.daemon;

import java.lang.reflect.Proxy;
import jnr.ffi.LibraryLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handlers for the signals the daemon answers: SIGTERM and SIGINT stop it, SIGHUP reloads its config. Java's only way
 * to catch a signal is sun.misc.Signal (module jdk.unsupported); it is reached by reflection because javac warns on
 * every direct use with no way to silence it, and the build treats warnings as errors.
 *
 * <p>A daemon started with SIGHUP ignored ({@code nohup}, a shell script's background job) would never see a reload:
 * the JVM leaves an ignored signal alone. The daemon takes SIGHUP back (its disposition reset with libc's
 * {@code signal}), which keeps what nohup wants, since SIGHUP only reloads here and never stops the daemon.
 */
final class ProcessSignals {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessSignals.class);
    private static final int SIGHUP = 1;
    private static final long SIG_DFL = 0;

    /** libc's signal(2); public because jnr-ffi implements it in another class loader. */
    public interface SignalCall {
        long signal(int signum, long handler);
    }

    private ProcessSignals() {}

    /** Runs {@code stop} on SIGTERM and on SIGINT. */
    static void onStop(Runnable stop) {
        handle("TERM", stop);
        handle("INT", stop);
    }

    /** Runs {@code reload} on SIGHUP, also when the daemon was started with SIGHUP ignored. */
    static void onHangUp(Runnable reload) {
        if (!handle("HUP", reload) && !(resetHangUp() && handle("HUP", reload))) {
            LOG.warn("SIGHUP was ignored when the daemon started (nohup?) and cannot be taken back: kill -HUP will not"
                    + " reload the config; start the daemon without nohup (systemd does)");
        }
    }

    /** SIGHUP's disposition back to the default, so that the JVM will install a handler; false when libc refuses. */
    private static boolean resetHangUp() {
        try {
            LibraryLoader.create(SignalCall.class).load("c").signal(SIGHUP, SIG_DFL);
            return true;
        } catch (RuntimeException | LinkageError e) {
            LOG.debug("signal(SIGHUP, SIG_DFL) failed", e);
            return false;
        }
    }

    /** Installs {@code action}; false when the JVM left the signal alone because it was ignored at start. */
    private static boolean handle(String name, Runnable action) {
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handler = Class.forName("sun.misc.SignalHandler");
            Object onSignal = Proxy.newProxyInstance(
                    handler.getClassLoader(),
                    new Class<?>[] {handler},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "handle" -> {
                            action.run();
                            yield null;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> "SIG" + name + " handler";
                    });
            Object previous = signal.getMethod("handle", signal, handler)
                    .invoke(null, signal.getConstructor(String.class).newInstance(name), onSignal);
            return previous != handler.getField("SIG_IGN").get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this Java runtime cannot catch SIG" + name + ": " + e.getMessage(), e);
        }
    }
}
