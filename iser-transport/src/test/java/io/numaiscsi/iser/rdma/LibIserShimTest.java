package io.numaiscsi.iser.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import jnr.ffi.Pointer;
import org.junit.jupiter.api.Test;

/** The built shim loads through jnr-ffi and its device-free parts (the work request batch) behave. */
class LibIserShimTest {

    @Test
    void batchTakesAsManyWorkRequestsAsItsCapacityThenSaysNoSpace() {
        assumeTrue(
                LibIserShim.class.getResource(LibIserShim.RESOURCE) != null,
                "this build has no verbs shim (no rdma-core headers)");
        LibIserShim shim = LibIserShim.load();
        assertNotNull(shim, "the shim built into the jar loads");
        Pointer batch = shim.ishim_batch_new(2);
        assertNotNull(batch);
        assertEquals(0, shim.ishim_batch_send(batch, 1, 1, 0x1000, 64, 7, 0, 0, 0));
        assertEquals(0, shim.ishim_batch_send(batch, 2, 2, 0x2000, 64, 7, 0x9000, 9, 1));
        assertEquals(28, shim.ishim_batch_send(batch, 3, 3, 0x3000, 64, 7, 0x9000, 9, 1), "ENOSPC");
        assertEquals(0, shim.ishim_batch_recv(batch, 5, 0x4000, 128, 7));
        assertEquals(0, shim.ishim_batch_recv(batch, 6, 0x4000, 128, 7));
        assertEquals(28, shim.ishim_batch_recv(batch, 7, 0x4000, 128, 7));
        shim.ishim_batch_free(batch);
    }

    @Test
    void eventChannelWithoutRdmaCmDeviceIsReportedNotThrown() {
        assumeTrue(LibIserShim.class.getResource(LibIserShim.RESOURCE) != null, "no verbs shim in this build");
        assumeTrue(!new File("/dev/infiniband/rdma_cm").exists(), "this host has an RDMA CM device");
        LibIserShim shim = LibIserShim.load();
        assertNotNull(shim);
        Pointer channel = shim.ishim_channel_create();
        assertEquals(null, channel, "no /dev/infiniband/rdma_cm: NULL, errno " + shim.ishim_errno());
    }
}
