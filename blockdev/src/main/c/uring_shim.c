/*
 * numa-iscsi-target io_uring shim: the liburing calls FileBlockDevice's io_uring engine needs, as plain exported
 * functions over an opaque ring. It exists because liburing's request preparation (io_uring_prep_*) and completion
 * access (io_uring_peek_cqe, io_uring_cq_advance) are static inline functions over the shared rings that jnr-ffi
 * cannot call. No policy lives here: which fd, when to submit, short transfers and errors are decided in Java
 * (blockdev/.../backstore/UringBackingIo.java). Functions return a count or -errno; none sets errno for the caller.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <liburing.h>

#define USHIM_EXPORT __attribute__((visibility("default")))

/* The calls' shape: LibUringShim.ABI checks it, so that a shim of another build found first on the class path is
 * refused by name instead of misreading arguments. */
#define USHIM_ABI 3

/* Request kinds as the Java side names them. */
#define USHIM_READ 1
#define USHIM_WRITE 2
#define USHIM_FDATASYNC 3

/* Creates a ring of `entries` submission slots; NULL with *err = -errno when the kernel refuses (seccomp,
 * io_uring_disabled, RLIMIT_MEMLOCK on old kernels) or lacks IORING_FEAT_EXT_ARG (5.11), which the timed wait
 * needs so that waiting never takes a submission slot. */
USHIM_EXPORT struct io_uring *ushim_ring_new(unsigned entries, int *err) {
    struct io_uring *ring = calloc(1, sizeof(*ring));
    if (ring == NULL) {
        *err = -ENOMEM;
        return NULL;
    }
    struct io_uring_params p = {0};
    int rc = io_uring_queue_init_params(entries, ring, &p);
    if (rc < 0) {
        free(ring);
        *err = rc;
        return NULL;
    }
    if (!(p.features & IORING_FEAT_EXT_ARG)) {
        io_uring_queue_exit(ring);
        free(ring);
        *err = -ENOSYS;
        return NULL;
    }
    *err = 0;
    return ring;
}

/* USHIM_ABI, for the Java side to check before it makes a ring. */
USHIM_EXPORT int ushim_abi(void) {
    return USHIM_ABI;
}

/* Cancels what is still in flight, waits for it and frees the ring. */
USHIM_EXPORT void ushim_ring_free(struct io_uring *ring) {
    io_uring_queue_exit(ring);
    free(ring);
}

/* Opens `path` (the device's /proc/self/fd/N) again with O_DIRECT, read-write or (writable 0) read-only: an fd or
   -errno. */
USHIM_EXPORT int ushim_open_direct(const char *path, int writable) {
    int fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_DIRECT | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

USHIM_EXPORT int ushim_close(int fd) {
    return close(fd) == 0 ? 0 : -errno;
}

/* Queues one request (not yet submitted); -EBUSY when the submission queue is full, -EINVAL for an unknown op.
 * `request` carries the op in its high 32 bits and the fd in its low 32 so that the call has six arguments: jnr-ffi
 * passes up to six numeric arguments in registers, and seven or more through a buffer allocated per call. */
USHIM_EXPORT int ushim_queue(struct io_uring *ring, uint64_t request, uint64_t address, unsigned length,
                             uint64_t offset, uint64_t user_data) {
    int op = (int)(request >> 32);
    int fd = (int)(uint32_t)request;
    if (op < USHIM_READ || op > USHIM_FDATASYNC) {
        return -EINVAL;
    }
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (sqe == NULL) {
        return -EBUSY;
    }
    switch (op) {
    case USHIM_READ:
        io_uring_prep_read(sqe, fd, (void *)(uintptr_t)address, length, offset);
        break;
    case USHIM_WRITE:
        io_uring_prep_write(sqe, fd, (const void *)(uintptr_t)address, length, offset);
        break;
    default: /* USHIM_FDATASYNC */
        io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
        break;
    }
    io_uring_sqe_set_data64(sqe, user_data);
    return 0;
}

/* Hands everything queued to the kernel: the number submitted or -errno (-EBUSY/-EAGAIN: retry later). */
USHIM_EXPORT int ushim_submit(struct io_uring *ring) {
    return io_uring_submit(ring);
}

/* Blocks up to `timeout_millis` until at least one completion is ready, without consuming it: 0, -ETIME or
 * -EINTR. Safe beside ushim_reap on another thread as long as the callers serialize ushim_reap. */
USHIM_EXPORT int ushim_wait(struct io_uring *ring, int timeout_millis) {
    struct io_uring_cqe *cqe = NULL;
    struct __kernel_timespec ts = {.tv_sec = timeout_millis / 1000, .tv_nsec = (timeout_millis % 1000) * 1000000L};
    return io_uring_wait_cqe_timeout(ring, &cqe, &ts);
}

/* Consumes up to `max` ready completions into out as (user_data, res) pairs of int64; never blocks. */
USHIM_EXPORT int ushim_reap(struct io_uring *ring, int64_t *out, int max) {
    struct io_uring_cqe *cqes[64];
    int total = 0;
    while (total < max) {
        unsigned want = (unsigned)(max - total) < 64 ? (unsigned)(max - total) : 64;
        unsigned n = io_uring_peek_batch_cqe(ring, cqes, want);
        if (n == 0) {
            break;
        }
        for (unsigned i = 0; i < n; i++) {
            out[2 * total] = (int64_t)io_uring_cqe_get_data64(cqes[i]);
            out[2 * total + 1] = cqes[i]->res;
            total++;
        }
        io_uring_cq_advance(ring, n);
    }
    return total;
}
