/*
 * wtload - a YCSB-style load for WiredTiger with journaling, and the check of what survives a crash.
 * Built on the host against libwiredtiger-dev (3.2.1, the library of the guest's libwiredtiger0) and
 * run in the test guest on a file system on the target's LUN (fio-tests/vm/guest/wiredtiger.sh).
 *
 *   wtload load  HOME RECORDS COMMITS            one table of RECORDS records (keys 0..RECORDS-1)
 *   wtload run   HOME RECORDS COMMITS MIX SECONDS SEED   YCSB mix A, B, C or F on zipfian keys
 *   wtload check HOME RECORDS HISTORY COMMITS   after recovery: everything HISTORY says was committed
 *
 * The database: log=(enabled), transaction_sync=(enabled,method=fsync) (each commit returns once
 * its log record is fsync'ed), a checkpoint every WTLOAD_CHECKPOINT_S seconds (default 10), a
 * WiredTiger cache of WTLOAD_CACHE_MB (default 16); run reads every record first (its version) unless WTLOAD_SCAN=0. Records: key "Q", value 1 KiB raw: key, version,
 * FNV-1a digest of the rest, the rest a function of (key, version), so any value read can be
 * checked on its own. One thread, one transaction per update: at most one commit is in flight.
 *
 * COMMITS gets one line per transaction, each with one write(2) (the file is on the host's 9p share,
 * so a line is on the host when the write returns): "W key version" before the commit is asked for,
 * "C key version digest" once it returned (load: "C" lines of a batch after its commit). check
 * reads HISTORY (every earlier COMMITS, in order): the last "C" of each key is what must be there;
 * a "W" with no "C" after it at the end of HISTORY is the one commit in flight at the crash, which
 * may or may not have survived. check opens the database (WiredTiger's recovery runs), runs
 * WT_SESSION::verify on the table, reads every key, compares, and writes to COMMITS a "C" line for
 * an in-flight update that survived (so later checks expect it). Output: "check: ..." lines and
 * "wtload-check: N records, N committed, N lost, N wrong, N bad, verify OK|FAILED"; exit 0 only if
 * nothing is lost, wrong or bad and verify is clean.
 * run prints "wtload-run: mix M, N ops in S s, N ops/s, read p50/p99 us, update p50/p99 us".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wiredtiger.h>

#define VALUE_BYTES 1024
#define HEADER_BYTES 24
#define TABLE "table:ycsb"
#define LOAD_BATCH 100
#define ZIPF_THETA 0.99

static void die(const char *what, int ret) {
  fprintf(stderr, "wtload: %s: %s\n", what, ret ? wiredtiger_strerror(ret) : strerror(errno));
  exit(2);
}

#define WT(call)                 \
  do {                           \
    int ret_ = (call);           \
    if (ret_ != 0) die(#call, ret_); \
  } while (0)

static uint64_t fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

/* The value of (key, version): header (key, version, digest of the body) and a pseudo-random body. */
static uint64_t make_value(unsigned char *v, uint64_t key, uint64_t version) {
  uint64_t x = key * 0x9E3779B97F4A7C15ULL ^ (version + 1) * 0xD1B54A32D192ED03ULL;
  for (int i = HEADER_BYTES; i < VALUE_BYTES; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    memcpy(v + i, &x, 8);
  }
  uint64_t digest = fnv1a(v + HEADER_BYTES, VALUE_BYTES - HEADER_BYTES);
  memcpy(v, &key, 8);
  memcpy(v + 8, &version, 8);
  memcpy(v + 16, &digest, 8);
  return digest;
}

/* A value read back: 0 if it is whole (its digest matches and it is the value of its key and version). */
static int value_ok(const WT_ITEM *item, uint64_t key, uint64_t *version, uint64_t *digest) {
  unsigned char want[VALUE_BYTES];
  if (item->size != VALUE_BYTES) return -1;
  memcpy(version, (const char *)item->data + 8, 8);
  memcpy(digest, (const char *)item->data + 16, 8);
  make_value(want, key, *version);
  return memcmp(want, item->data, VALUE_BYTES) == 0 ? 0 : -1;
}

static int commits_fd = -1;

static void commit_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void commit_line(const char *fmt, ...) {
  char line[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (write(commits_fd, line, (size_t)n) != n) die("write to the commit log", 0);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static WT_CONNECTION *open_db(const char *home) {
  char config[512];
  const char *ckpt = getenv("WTLOAD_CHECKPOINT_S");
  const char *cache = getenv("WTLOAD_CACHE_MB");
  snprintf(config, sizeof config,
           "create,cache_size=%sMB,log=(enabled=true),transaction_sync=(enabled=true,method=fsync),"
           "checkpoint=(wait=%s),statistics=(fast)",
           cache ? cache : "16", ckpt ? ckpt : "10");
  WT_CONNECTION *conn;
  WT(wiredtiger_open(home, NULL, config, &conn));
  return conn;
}

static void open_commits(const char *path) {
  commits_fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (commits_fd < 0) die(path, 0);
}

/* ---- YCSB's scrambled zipfian (Gray et al., "Quickly generating billion-record synthetic databases") ---- */
static struct {
  uint64_t n;
  double alpha, zetan, eta, half_pow;
} zipf;

static void zipf_init(uint64_t n) {
  double zeta2 = 1 + pow(0.5, ZIPF_THETA), zetan = 0;
  for (uint64_t i = 1; i <= n; i++) zetan += 1 / pow((double)i, ZIPF_THETA);
  zipf.n = n;
  zipf.zetan = zetan;
  zipf.alpha = 1 / (1 - ZIPF_THETA);
  zipf.eta = (1 - pow(2.0 / n, 1 - ZIPF_THETA)) / (1 - zeta2 / zetan);
  zipf.half_pow = 1 + pow(0.5, ZIPF_THETA);
}

static uint64_t rng_state;
static double uniform(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return (rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/* A key: the zipfian rank, scattered over the key space by a hash so the hot keys are not neighbours. */
static uint64_t zipf_key(void) {
  double u = uniform(), uz = u * zipf.zetan;
  uint64_t rank;
  if (uz < 1) rank = 0;
  else if (uz < zipf.half_pow) rank = 1;
  else rank = (uint64_t)(zipf.n * pow(zipf.eta * u - zipf.eta + 1, zipf.alpha));
  if (rank >= zipf.n) rank = zipf.n - 1;
  return fnv1a((const unsigned char *)&rank, sizeof rank) % zipf.n;
}

/* ---- load ---- */
static int do_load(const char *home, uint64_t records, const char *commits) {
  WT_CONNECTION *conn = open_db(home);
  WT_SESSION *s;
  WT_CURSOR *c;
  unsigned char v[VALUE_BYTES];
  uint64_t digests[LOAD_BATCH];
  open_commits(commits);
  WT(conn->open_session(conn, NULL, NULL, &s));
  WT(s->create(s, TABLE, "key_format=Q,value_format=u"));
  WT(s->open_cursor(s, TABLE, NULL, NULL, &c));
  double t0 = now_s();
  for (uint64_t first = 0; first < records; first += LOAD_BATCH) {
    uint64_t end = first + LOAD_BATCH < records ? first + LOAD_BATCH : records;
    WT(s->begin_transaction(s, NULL));
    for (uint64_t k = first; k < end; k++) {
      WT_ITEM item = {.data = v, .size = VALUE_BYTES};
      digests[k - first] = make_value(v, k, 1);
      c->set_key(c, k);
      c->set_value(c, &item);
      WT(c->insert(c));
    }
    WT(s->commit_transaction(s, NULL));
    for (uint64_t k = first; k < end; k++) commit_line("C %" PRIu64 " 1 %016" PRIx64 "\n", k, digests[k - first]);
  }
  WT(s->checkpoint(s, NULL));
  printf("wtload-load: %" PRIu64 " records of %d bytes in %.1f s\n", records, VALUE_BYTES, now_s() - t0);
  WT(conn->close(conn, NULL));
  return 0;
}

/* ---- run ---- */
static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

struct lat {
  uint32_t *us;
  size_t n, cap;
};

static void lat_add(struct lat *l, double seconds) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 4096;
    l->us = realloc(l->us, l->cap * sizeof *l->us);
    if (!l->us) die("realloc", 0);
  }
  l->us[l->n++] = (uint32_t)(seconds * 1e6);
}

static uint32_t lat_pct(struct lat *l, double p) {
  if (l->n == 0) return 0;
  qsort(l->us, l->n, sizeof *l->us, cmp_u32);
  size_t i = (size_t)(p * (l->n - 1) + 0.5);
  return l->us[i];
}

/* Reads key into *version; exits on a value that is not whole (a torn or misplaced record). */
static void read_key(WT_CURSOR *c, uint64_t key, uint64_t *version) {
  WT_ITEM item;
  uint64_t digest;
  c->set_key(c, key);
  WT(c->search(c));
  WT(c->get_value(c, &item));
  if (value_ok(&item, key, version, &digest) != 0) {
    fprintf(stderr, "wtload: key %" PRIu64 " holds a bad value\n", key);
    exit(3);
  }
  WT(c->reset(c));
}

static int do_run(const char *home, uint64_t records, const char *commits, char mix, double seconds, uint64_t seed) {
  int read_pct;
  switch (mix) {
    case 'A': read_pct = 50; break;
    case 'B': read_pct = 95; break;
    case 'C': read_pct = 100; break;
    case 'F': read_pct = 50; break;  /* the other half: read-modify-write */
    default: fprintf(stderr, "wtload: mix must be A, B, C or F, got %c\n", mix); return 2;
  }
  WT_CONNECTION *conn = open_db(home);
  WT_SESSION *s;
  WT_CURSOR *c;
  unsigned char v[VALUE_BYTES];
  open_commits(commits);
  WT(conn->open_session(conn, NULL, NULL, &s));
  WT(s->open_cursor(s, TABLE, NULL, NULL, &c));
  uint64_t *version = calloc(records, sizeof *version);
  if (!version) die("calloc", 0);
  /* WTLOAD_SCAN=0 (the benchmark's table is larger than memory, where a scan of it per run would take minutes in the
     emulated guest and fill the page cache): a key's version is read, untimed, before its first update instead */
  const char *scan = getenv("WTLOAD_SCAN");
  int lazy = scan && strcmp(scan, "0") == 0;
  if (lazy) memset(version, 0xff, records * sizeof *version);
  else for (uint64_t k = 0; k < records; k++) read_key(c, k, &version[k]);  /* also warms what fits */
  zipf_init(records);
  rng_state = seed ? seed : 88172645463325252ULL;
  struct lat reads = {0}, updates = {0};
  uint64_t ops = 0;
  double t0 = now_s(), end = t0 + seconds, last_report = t0;
  printf("wtload-run: mix %c on %" PRIu64 " records for %.0f s\n", mix, records, seconds);
  fflush(stdout);
  while (now_s() < end) {
    uint64_t key = zipf_key(), seen;
    int is_read = uniform() * 100 < read_pct;
    if (lazy && !is_read && mix != 'F' && version[key] == UINT64_MAX) read_key(c, key, &version[key]);
    double t = now_s();
    if (is_read) {
      read_key(c, key, &seen);
      lat_add(&reads, now_s() - t);
    } else {
      WT(s->begin_transaction(s, NULL));
      if (mix == 'F') {
        read_key(c, key, &seen);  /* the read of the read-modify-write, in its transaction */
        version[key] = seen;
      }
      uint64_t next = version[key] + 1;
      WT_ITEM item = {.data = v, .size = VALUE_BYTES};
      uint64_t digest = make_value(v, key, next);
      c->set_key(c, key);
      c->set_value(c, &item);
      WT(c->update(c));
      WT(c->reset(c));
      commit_line("W %" PRIu64 " %" PRIu64 "\n", key, next);
      WT(s->commit_transaction(s, NULL));
      commit_line("C %" PRIu64 " %" PRIu64 " %016" PRIx64 "\n", key, next, digest);
      version[key] = next;
      lat_add(&updates, now_s() - t);
    }
    ops++;
    if (now_s() - last_report >= 5) {
      last_report = now_s();
      printf("wtload-progress: %" PRIu64 " ops, %.0f s\n", ops, last_report - t0);
      fflush(stdout);
    }
  }
  double elapsed = now_s() - t0;
  printf("wtload-run: mix %c, %" PRIu64 " ops in %.1f s, %.1f ops/s, read p50/p99 %u/%u us, update p50/p99 %u/%u us, "
         "%zu reads, %zu updates\n",
         mix, ops, elapsed, ops / elapsed, lat_pct(&reads, 0.5), lat_pct(&reads, 0.99), lat_pct(&updates, 0.5),
         lat_pct(&updates, 0.99), reads.n, updates.n);
  WT(conn->close(conn, NULL));
  return 0;
}

/* ---- check ---- */
static int do_check(const char *home, uint64_t records, const char *history, const char *commits) {
  uint64_t *want = calloc(records, sizeof *want), *want_digest = calloc(records, sizeof *want_digest);
  if (!want || !want_digest) die("calloc", 0);
  uint64_t inflight_key = UINT64_MAX, inflight_version = 0, committed = 0;
  FILE *h = fopen(history, "r");
  if (!h) die(history, 0);
  char line[128];
  while (fgets(line, sizeof line, h)) {
    uint64_t k, ver, digest;
    if (sscanf(line, "C %" SCNu64 " %" SCNu64 " %" SCNx64, &k, &ver, &digest) == 3 && k < records) {
      want[k] = ver;
      want_digest[k] = digest;
      if (k == inflight_key && ver == inflight_version) inflight_key = UINT64_MAX;
    } else if (sscanf(line, "W %" SCNu64 " %" SCNu64, &k, &ver) == 2 && k < records) {
      inflight_key = k;
      inflight_version = ver;
    } else if (line[0] != '\n') {
      fprintf(stderr, "wtload: %s: cannot read line: %s", history, line);
      return 2;  /* a torn last line would be a harness fault: the writer writes whole lines */
    }
  }
  fclose(h);
  double t0 = now_s();
  WT_CONNECTION *conn = open_db(home);
  printf("check: opened (recovery done) in %.1f s\n", now_s() - t0);
  WT_SESSION *s;
  WT_CURSOR *c;
  open_commits(commits);
  WT(conn->open_session(conn, NULL, NULL, &s));
  int verify = s->verify(s, TABLE, NULL);
  printf("check: WT_SESSION::verify %s: %s\n", TABLE, verify ? wiredtiger_strerror(verify) : "clean");
  WT(s->open_cursor(s, TABLE, NULL, NULL, &c));
  uint64_t present = 0, lost = 0, wrong = 0, bad = 0, inflight_survived = 0;
  for (uint64_t k = 0; k < records; k++) {
    if (want[k]) committed++;
    c->set_key(c, k);
    int ret = c->search(c);
    if (ret == WT_NOTFOUND) {
      if (want[k]) {
        lost++;
        printf("check: LOST key %" PRIu64 " (committed version %" PRIu64 ")\n", k, want[k]);
      }
      continue;
    }
    if (ret) die("search", ret);
    present++;
    WT_ITEM item;
    uint64_t ver, digest;
    WT(c->get_value(c, &item));
    if (value_ok(&item, k, &ver, &digest) != 0) {
      bad++;
      printf("check: BAD value at key %" PRIu64 "\n", k);
    } else if (k == inflight_key && ver == inflight_version) {
      inflight_survived++;
      commit_line("C %" PRIu64 " %" PRIu64 " %016" PRIx64 "\n", k, ver, digest);
    } else if (want[k] && (ver != want[k] || digest != want_digest[k])) {
      wrong++;
      printf("check: WRONG key %" PRIu64 ": version %" PRIu64 ", committed %" PRIu64 "\n", k, ver, want[k]);
    }
    WT(c->reset(c));
  }
  if (inflight_key != UINT64_MAX)
    printf("check: the update in flight (key %" PRIu64 " version %" PRIu64 ") %s\n", inflight_key, inflight_version,
           inflight_survived ? "survived" : "did not survive");
  printf("wtload-check: %" PRIu64 " records, %" PRIu64 " committed, %" PRIu64 " lost, %" PRIu64 " wrong, %" PRIu64
         " bad, verify %s\n",
         present, committed, lost, wrong, bad, verify ? "FAILED" : "OK");
  WT(conn->close(conn, NULL));
  return lost || wrong || bad || verify ? 1 : 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc == 5 && strcmp(argv[1], "load") == 0)
    return do_load(argv[2], strtoull(argv[3], NULL, 10), argv[4]);
  if (argc == 8 && strcmp(argv[1], "run") == 0)
    return do_run(argv[2], strtoull(argv[3], NULL, 10), argv[4], argv[5][0], atof(argv[6]),
                  strtoull(argv[7], NULL, 10));
  if (argc == 6 && strcmp(argv[1], "check") == 0)
    return do_check(argv[2], strtoull(argv[3], NULL, 10), argv[4], argv[5]);
  fprintf(stderr,
          "usage: wtload load HOME RECORDS COMMITS\n"
          "       wtload run HOME RECORDS COMMITS MIX SECONDS SEED\n"
          "       wtload check HOME RECORDS HISTORY COMMITS\n");
  return 2;
}
