package io.numaiscsi.rbd;

import jnr.ffi.LibraryLoader;

/** Loads the Ceph client libraries once per process, with an error that names the package to install. */
final class NativeLibraries {
    private NativeLibraries() {}

    static <T> T load(Class<T> api, String library, String debianPackage) {
        try {
            return LibraryLoader.create(api).failImmediately().load(library);
        } catch (RuntimeException | LinkageError e) {
            throw new IllegalStateException(
                    "cannot load " + library + " (" + e.getMessage() + "): install " + debianPackage
                            + " (apt-get install " + debianPackage + ")",
                    e);
        }
    }
}
