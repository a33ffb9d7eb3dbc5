package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class EmulatedJvmCrashTest {
    private static final String HEAD = "2026-12-07T22:29:12+0000 vmtest numa-iscsi-target[445]: # A fatal error has "
            + "been detected by the Java Runtime Environment:\n"
            + "2026-12-07T22:29:12+0000 vmtest numa-iscsi-target[445]: #  SIGSEGV (0xb) at pc=0x00007f776165c060\n"
            + "2026-12-07T22:29:12+0000 vmtest numa-iscsi-target[445]: # Problematic frame:\n";

    @Test
    void aCrashInCompiledJavaCodeIsTheEmulatorsAndOneInNativeCodeIsNot() {
        assertTrue(EmulatedJvmCrash.in(HEAD + "2026-12-07T22:29:12+0000 vmtest numa-iscsi-target[445]: # J 1409 c1 "
                + "java.lang.invoke.VarHandle.checkExactAccessMode(Ljava/lang/invoke/VarHandle$AccessDescriptor;)V\n"));
        assertTrue(EmulatedJvmCrash.in("# A fatal error has been detected by the Java Runtime Environment:\n"
                + "# Problematic frame:\n# j  java.lang.Object.<init>()V+0\n"));
        assertTrue(
                EmulatedJvmCrash.in(
                        HEAD + "2026-12-08T02:01:57+0000 vmtest numa-iscsi-target[442]: # C  0x00007fc04cbdbf78\n"),
                "an address in no library: the code cache");
        assertTrue(EmulatedJvmCrash.in(HEAD + "# v  ~StubRoutines::jbyte_disjoint_arraycopy\n"));
        assertFalse(EmulatedJvmCrash.in(HEAD + "2026-12-07T22:29:12+0000 vmtest numa-iscsi-target[445]: # C  "
                + "[libushim.so+0x1234]  ushim_queue+0x20\n"));
        assertFalse(EmulatedJvmCrash.in(HEAD + "# V  [libjvm.so+0x5e1a2c]\n"));
        assertFalse(EmulatedJvmCrash.in("PASS start\n# J 12 c2 not a crash report\n"));
    }
}
