package io.numaiscsi.iser.rdma;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.annotations.Out;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The project's own C shim over librdmacm and libibverbs ({@code src/main/c/iser_shim.c}), bound with jnr-ffi.
 * Pointers travel as Pointer or 64-bit integers. Public only because jnr-ffi generates the implementation in
 * another class loader.
 */
public interface LibIserShim {
    String RESOURCE = "/native/linux-x86_64/libnumaiscsi-iser.so";
    String PATH_PROPERTY = "numaiscsi.iser.shim";

    int ishim_errno();

    Pointer ishim_channel_create();

    void ishim_channel_destroy(Pointer channel);

    Pointer ishim_listen(Pointer channel, String host, int port, int backlog);

    int ishim_get_cm_event(Pointer channel, int timeoutMillis, @Out long[] out);

    Pointer ishim_id_context(Pointer id);

    int ishim_id_address(Pointer id, int remote, @Out byte[] buffer, int length);

    int ishim_create_qp(Pointer id, Pointer pd, Pointer cq, int maxSendWr, int maxRecvWr);

    int ishim_accept(Pointer id, int responderResources, int initiatorDepth, byte[] privateData, int privateDataLength);

    int ishim_reject(Pointer id);

    int ishim_disconnect(Pointer id);

    void ishim_destroy(Pointer id, Pointer cq);

    Pointer ishim_alloc_pd(Pointer context);

    int ishim_dealloc_pd(Pointer pd);

    Pointer ishim_reg_mr(Pointer pd, long address, long length);

    int ishim_mr_lkey(Pointer mr);

    int ishim_mr_rkey(Pointer mr);

    int ishim_dereg_mr(Pointer mr);

    Pointer ishim_comp_channel(Pointer context);

    int ishim_comp_channel_destroy(Pointer channel);

    Pointer ishim_create_cq(Pointer context, int cqe, Pointer channel);

    int ishim_req_notify_cq(Pointer cq);

    /** {@code cq}: 8 bytes of native memory that receive the CQ's address. */
    int ishim_get_cq_event(Pointer channel, int timeoutMillis, Pointer cq);

    /** {@code out}: native memory for {@code max} (wr_id, status, byte_len) triples of longs. */
    int ishim_poll_cq(Pointer cq, int max, Pointer out);

    Pointer ishim_batch_new(int capacity);

    void ishim_batch_free(Pointer batch);

    int ishim_batch_send(
            Pointer batch,
            long wrId,
            int opcode,
            long address,
            int length,
            int lkey,
            long remoteAddress,
            int rkey,
            int signaled);

    int ishim_batch_recv(Pointer batch, long wrId, long address, int length, int lkey);

    int ishim_batch_post(Pointer batch, Pointer id);

    /**
     * The shim from {@code -Dnumaiscsi.iser.shim=/path}, else the copy built into this jar; null (with the
     * reason logged) when neither loads, e.g. the build machine had no libibverbs-dev or the host no rdma-core.
     */
    static LibIserShim load() {
        Logger log = LoggerFactory.getLogger(LibIserShim.class);
        String path = System.getProperty(PATH_PROPERTY);
        try {
            if (path == null) {
                try (InputStream in = LibIserShim.class.getResourceAsStream(RESOURCE)) {
                    if (in == null) {
                        log.warn(
                                "iSER unavailable: this build has no {} (libibverbs-dev/librdmacm-dev were missing "
                                        + "when it was built)",
                                RESOURCE);
                        return null;
                    }
                    Path tmp = Files.createTempFile("numaiscsi-iser", ".so");
                    tmp.toFile().deleteOnExit();
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                    path = tmp.toString();
                }
            }
            return LibraryLoader.create(LibIserShim.class).failImmediately().load(path);
        } catch (IOException | RuntimeException | LinkageError e) {
            log.warn(
                    "iSER unavailable: cannot load the verbs shim {} ({}); install rdma-core (librdmacm1, "
                            + "libibverbs1, a provider such as ibverbs-providers)",
                    path,
                    e.toString());
            return null;
        }
    }
}
