package io.numaiscsi.daemon;

import java.lang.reflect.Proxy;

/**
 * Handlers for the signals the daemon answers: SIGTERM and SIGINT stop it, SIGHUP reloads its config. Java's only way
 * to catch a signal is sun.misc.Signal (module jdk.unsupported); it is reached by reflection because javac warns on
 * every direct use with no way to silence it, and the build treats warnings as errors.
 */
final class ProcessSignals {
    private ProcessSignals() {}

    /** Runs {@code stop} on SIGTERM and on SIGINT. */
    static void onStop(Runnable stop) {
        handle("TERM", stop);
        handle("INT", stop);
    }

    /** Runs {@code reload} on SIGHUP. */
    static void onHangUp(Runnable reload) {
        handle("HUP", reload);
    }

    private static void handle(String name, Runnable action) {
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
            signal.getMethod("handle", signal, handler)
                    .invoke(null, signal.getConstructor(String.class).newInstance(name), onSignal);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this Java runtime cannot catch SIG" + name + ": " + e.getMessage(), e);
        }
    }
}
