/*
 * numa-iscsi-target iSER shim: the librdmacm / libibverbs calls the Java transport needs, as plain exported
 * functions over opaque pointers. It exists because ibv_post_send, ibv_post_recv, ibv_poll_cq and
 * ibv_req_notify_cq are static inline functions (they jump through the context's ops table) that jnr-ffi
 * cannot call directly. No policy lives here: every decision is in Java.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define ISHIM_EXPORT __attribute__((visibility("default")))

/* Work request opcodes as the Java side names them. */
#define ISHIM_SEND 1
#define ISHIM_WRITE 2
#define ISHIM_READ 3

ISHIM_EXPORT int ishim_errno(void) { return errno; }

/* ---- connection manager ------------------------------------------------------------------------------ */

ISHIM_EXPORT struct rdma_event_channel *ishim_channel_create(void) { return rdma_create_event_channel(); }

ISHIM_EXPORT void ishim_channel_destroy(struct rdma_event_channel *ch) { rdma_destroy_event_channel(ch); }

/* Binds and listens on host:port (numeric host); returns the listening id or NULL (see ishim_errno). */
ISHIM_EXPORT struct rdma_cm_id *ishim_listen(struct rdma_event_channel *ch, const char *host, int port, int backlog) {
    struct rdma_cm_id *id = NULL;
    struct addrinfo hints, *res = NULL;
    char service[16];
    if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0) {
        return NULL;
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(service, sizeof(service), "%d", port);
    if (getaddrinfo(host, service, &hints, &res) != 0 || res == NULL) {
        rdma_destroy_id(id);
        errno = EINVAL;
        return NULL;
    }
    int rc = rdma_bind_addr(id, res->ai_addr);
    freeaddrinfo(res);
    if (rc != 0 || rdma_listen(id, backlog) != 0) {
        int saved = errno;
        rdma_destroy_id(id);
        errno = saved;
        return NULL;
    }
    return id;
}

/*
 * Waits up to timeout_ms for one CM event and acknowledges it. out[0] event type, out[1] the event's id,
 * out[2] the listening id, out[3] first byte of the private data (-1 when none), out[4] private data length,
 * out[5] status, out[6] the peer's responder resources (RDMA Reads it serves at once), out[7] its initiator
 * depth. Returns 1 with an event, 0 on timeout, -1 on error.
 */
ISHIM_EXPORT int ishim_get_cm_event(struct rdma_event_channel *ch, int timeout_ms, int64_t *out) {
    struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
    int n = poll(&pfd, 1, timeout_ms);
    if (n <= 0) {
        return n == 0 ? 0 : -1;
    }
    struct rdma_cm_event *ev = NULL;
    if (rdma_get_cm_event(ch, &ev) != 0) {
        return -1;
    }
    out[0] = ev->event;
    out[1] = (int64_t) (intptr_t) ev->id;
    out[2] = (int64_t) (intptr_t) ev->listen_id;
    out[3] = -1;
    out[4] = 0;
    out[6] = 0;
    out[7] = 0;
    if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST || ev->event == RDMA_CM_EVENT_ESTABLISHED) {
        const struct rdma_conn_param *p = &ev->param.conn;
        out[4] = p->private_data_len;
        out[6] = p->responder_resources;
        out[7] = p->initiator_depth;
        if (p->private_data != NULL && p->private_data_len > 0) {
            out[3] = ((const uint8_t *) p->private_data)[0];
        }
    }
    out[5] = ev->status;
    rdma_ack_cm_event(ev);
    return 1;
}

ISHIM_EXPORT struct ibv_context *ishim_id_context(struct rdma_cm_id *id) { return id->verbs; }

/* "a.b.c.d:port" of the peer (remote != 0) or of this side, into buf; returns its length. */
ISHIM_EXPORT int ishim_id_address(struct rdma_cm_id *id, int remote, char *buf, int len) {
    struct sockaddr *sa = remote ? rdma_get_peer_addr(id) : rdma_get_local_addr(id);
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (sa->sa_family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *) sa;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
        port = ntohs(in->sin_port);
        return snprintf(buf, len, "%s:%d", host, port);
    }
    if (sa->sa_family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
        port = ntohs(in6->sin6_port);
        return snprintf(buf, len, "[%s]:%d", host, port);
    }
    return snprintf(buf, len, "?");
}

/* RC queue pair on the request's id; completions of both queues go to cq; unsignaled sends allowed. */
ISHIM_EXPORT int ishim_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *cq, int max_send_wr,
                                 int max_recv_wr) {
    struct ibv_qp_init_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.send_cq = cq;
    attr.recv_cq = cq;
    attr.qp_type = IBV_QPT_RC;
    attr.sq_sig_all = 0;
    attr.cap.max_send_wr = max_send_wr;
    attr.cap.max_recv_wr = max_recv_wr;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    return rdma_create_qp(id, pd, &attr);
}

ISHIM_EXPORT int ishim_accept(struct rdma_cm_id *id, int responder_resources, int initiator_depth,
                              const uint8_t *private_data, int private_data_len) {
    struct rdma_conn_param p;
    memset(&p, 0, sizeof(p));
    p.responder_resources = responder_resources;
    p.initiator_depth = initiator_depth;
    p.rnr_retry_count = 7;
    p.private_data = private_data;
    p.private_data_len = private_data_len;
    return rdma_accept(id, &p);
}

ISHIM_EXPORT int ishim_reject(struct rdma_cm_id *id) { return rdma_reject(id, NULL, 0); }

ISHIM_EXPORT int ishim_disconnect(struct rdma_cm_id *id) { return rdma_disconnect(id); }

/* Destroys the queue pair (if any), the id, then the completion queue. */
ISHIM_EXPORT void ishim_destroy(struct rdma_cm_id *id, struct ibv_cq *cq) {
    if (id != NULL) {
        if (id->qp != NULL) {
            rdma_destroy_qp(id);
        }
        rdma_destroy_id(id);
    }
    if (cq != NULL) {
        ibv_destroy_cq(cq);
    }
}

/* ---- device: protection domain, memory, completion queues -------------------------------------------- */

ISHIM_EXPORT struct ibv_pd *ishim_alloc_pd(struct ibv_context *ctx) { return ibv_alloc_pd(ctx); }

ISHIM_EXPORT int ishim_dealloc_pd(struct ibv_pd *pd) { return ibv_dealloc_pd(pd); }

ISHIM_EXPORT struct ibv_mr *ishim_reg_mr(struct ibv_pd *pd, int64_t address, int64_t length) {
    return ibv_reg_mr(pd, (void *) (intptr_t) address, (size_t) length,
                      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
}

ISHIM_EXPORT uint32_t ishim_mr_lkey(struct ibv_mr *mr) { return mr->lkey; }

ISHIM_EXPORT uint32_t ishim_mr_rkey(struct ibv_mr *mr) { return mr->rkey; }

ISHIM_EXPORT int ishim_dereg_mr(struct ibv_mr *mr) { return ibv_dereg_mr(mr); }

ISHIM_EXPORT struct ibv_comp_channel *ishim_comp_channel(struct ibv_context *ctx) {
    return ibv_create_comp_channel(ctx);
}

ISHIM_EXPORT int ishim_comp_channel_destroy(struct ibv_comp_channel *channel) {
    return ibv_destroy_comp_channel(channel);
}

ISHIM_EXPORT struct ibv_cq *ishim_create_cq(struct ibv_context *ctx, int cqe, struct ibv_comp_channel *channel) {
    return ibv_create_cq(ctx, cqe, NULL, channel, 0);
}

ISHIM_EXPORT int ishim_req_notify_cq(struct ibv_cq *cq) { return ibv_req_notify_cq(cq, 0); }

/*
 * Waits up to timeout_ms for a completion event on the channel; acknowledges it. Returns 1 and the CQ in
 * *cq_out, 0 on timeout, -1 on error.
 */
ISHIM_EXPORT int ishim_get_cq_event(struct ibv_comp_channel *channel, int timeout_ms, int64_t *cq_out) {
    struct pollfd pfd = {.fd = channel->fd, .events = POLLIN};
    int n = poll(&pfd, 1, timeout_ms);
    if (n <= 0) {
        return n == 0 ? 0 : -1;
    }
    struct ibv_cq *cq = NULL;
    void *cq_context = NULL;
    if (ibv_get_cq_event(channel, &cq, &cq_context) != 0) {
        return -1;
    }
    ibv_ack_cq_events(cq, 1);
    *cq_out = (int64_t) (intptr_t) cq;
    return 1;
}

/* Reaps up to max completions: out holds (wr_id, status, byte_len) triples. Returns the count or -1. */
ISHIM_EXPORT int ishim_poll_cq(struct ibv_cq *cq, int max, int64_t *out) {
    struct ibv_wc wc[32];
    int total = 0;
    while (total < max) {
        int want = max - total < 32 ? max - total : 32;
        int n = ibv_poll_cq(cq, want, wc);
        if (n < 0) {
            return -1;
        }
        for (int i = 0; i < n; i++) {
            out[3 * (total + i)] = (int64_t) wc[i].wr_id;
            out[3 * (total + i) + 1] = wc[i].status;
            out[3 * (total + i) + 2] = wc[i].byte_len;
        }
        total += n;
        if (n < want) {
            break;
        }
    }
    return total;
}

/* ---- batched posting: work requests chained and handed to the device in one call per queue ----------- */

struct ishim_batch {
    int capacity;
    int sends;
    int recvs;
    struct ibv_send_wr *send_wr;
    struct ibv_sge *send_sge;
    struct ibv_recv_wr *recv_wr;
    struct ibv_sge *recv_sge;
};

ISHIM_EXPORT struct ishim_batch *ishim_batch_new(int capacity) {
    struct ishim_batch *b = calloc(1, sizeof(*b));
    if (b == NULL) {
        return NULL;
    }
    b->capacity = capacity;
    b->send_wr = calloc(capacity, sizeof(struct ibv_send_wr));
    b->send_sge = calloc(capacity, sizeof(struct ibv_sge));
    b->recv_wr = calloc(capacity, sizeof(struct ibv_recv_wr));
    b->recv_sge = calloc(capacity, sizeof(struct ibv_sge));
    if (!b->send_wr || !b->send_sge || !b->recv_wr || !b->recv_sge) {
        free(b->send_wr);
        free(b->send_sge);
        free(b->recv_wr);
        free(b->recv_sge);
        free(b);
        return NULL;
    }
    return b;
}

ISHIM_EXPORT void ishim_batch_free(struct ishim_batch *b) {
    if (b != NULL) {
        free(b->send_wr);
        free(b->send_sge);
        free(b->recv_wr);
        free(b->recv_sge);
        free(b);
    }
}

/* One scatter/gather entry: the bytes [address, address + length) of the region of lkey. */
static void ishim_sge_set(struct ibv_sge *sge, int64_t address, int length, uint32_t lkey) {
    sge->addr = (uint64_t) address;
    sge->length = (uint32_t) length;
    sge->lkey = lkey;
}

/* Adds a Send, RDMA Write or RDMA Read; returns 0, or ENOSPC when the batch is full. */
ISHIM_EXPORT int ishim_batch_send(struct ishim_batch *b, int64_t wr_id, int opcode, int64_t address, int length,
                                  uint32_t lkey, int64_t remote_address, uint32_t rkey, int signaled) {
    if (b->sends == b->capacity) {
        return ENOSPC;
    }
    struct ibv_send_wr *wr = &b->send_wr[b->sends];
    struct ibv_sge *sge = &b->send_sge[b->sends];
    memset(wr, 0, sizeof(*wr));
    ishim_sge_set(sge, address, length, lkey);
    wr->wr_id = (uint64_t) wr_id;
    wr->sg_list = sge;
    /* zero length: no scatter entry at all (some devices read a zero-length entry as 2 GiB) */
    wr->num_sge = length > 0 ? 1 : 0;
    wr->send_flags = signaled ? IBV_SEND_SIGNALED : 0;
    switch (opcode) {
        case ISHIM_SEND: wr->opcode = IBV_WR_SEND; break;
        case ISHIM_WRITE: wr->opcode = IBV_WR_RDMA_WRITE; break;
        case ISHIM_READ: wr->opcode = IBV_WR_RDMA_READ; wr->send_flags = IBV_SEND_SIGNALED; break;
        default: return EINVAL;
    }
    if (opcode != ISHIM_SEND) {
        wr->wr.rdma.remote_addr = (uint64_t) remote_address;
        wr->wr.rdma.rkey = rkey;
    }
    if (b->sends > 0) {
        b->send_wr[b->sends - 1].next = wr;
    }
    b->sends++;
    return 0;
}

ISHIM_EXPORT int ishim_batch_recv(struct ishim_batch *b, int64_t wr_id, int64_t address, int length, uint32_t lkey) {
    if (b->recvs == b->capacity) {
        return ENOSPC;
    }
    struct ibv_recv_wr *wr = &b->recv_wr[b->recvs];
    struct ibv_sge *sge = &b->recv_sge[b->recvs];
    memset(wr, 0, sizeof(*wr));
    ishim_sge_set(sge, address, length, lkey);
    wr->wr_id = (uint64_t) wr_id;
    wr->sg_list = sge;
    wr->num_sge = 1;
    if (b->recvs > 0) {
        b->recv_wr[b->recvs - 1].next = wr;
    }
    b->recvs++;
    return 0;
}

/* Posts the receives, then the sends, of the batch on the id's queue pair; empties the batch. 0 or an errno. */
ISHIM_EXPORT int ishim_batch_post(struct ishim_batch *b, struct rdma_cm_id *id) {
    int rc = 0;
    if (b->recvs > 0) {
        struct ibv_recv_wr *bad = NULL;
        rc = ibv_post_recv(id->qp, b->recv_wr, &bad);
        b->recvs = 0;
    }
    if (rc == 0 && b->sends > 0) {
        struct ibv_send_wr *bad = NULL;
        rc = ibv_post_send(id->qp, b->send_wr, &bad);
    }
    b->sends = 0;
    b->recvs = 0;
    return rc;
}
