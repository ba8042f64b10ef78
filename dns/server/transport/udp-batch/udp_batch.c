/*
 * UDP with one system call per batch of datagrams (Linux recvmmsg/sendmmsg), for the DNS server: Node's dgram
 * makes one recvmsg and one sendmsg per datagram, which on a busy server costs more than answering. A batch of
 * received datagrams is handed to JavaScript in one call, over buffers JavaScript owns (no allocation per datagram);
 * the answers it writes back go out in one sendmmsg. The socket is polled on the Node event loop (uv_poll_t).
 *
 * JavaScript side: dns/server/transport/udp-batch/index.ts. Layout of the shared buffers (SLOTS datagrams):
 *   in:      SLOTS x in_slot bytes, datagram i at i * in_slot
 *   addrs:   SLOTS x ADDR_SIZE bytes, the sender's sockaddr of datagram i
 *   meta:    Int32 x 4 per datagram: length, sockaddr length, truncated (1 when longer than in_slot), 0
 *   out:     SLOTS x out_slot bytes, answer j at j * out_slot
 *   outMeta: Int32 x 2 per answer: length, the datagram slot it answers (its sender is the destination)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <node_api.h>
#include <uv.h>

#define SLOTS 32
#define ADDR_SIZE 28 /* sizeof(struct sockaddr_in6) */
/* Batches read in one poll callback at most, so that other work on the event loop gets its turn. */
#define MAX_ROUNDS 8

typedef struct {
  int fd;
  int closed;
  /* owners: the poll handle (until its close callback) and the JS handle (until finalized or closed) */
  int refs;
  uv_poll_t poll;
  napi_env env;
  napi_ref callback;
  napi_ref buffers[5];
  napi_async_context async;
  char *in, *addrs, *out;
  int32_t *meta, *out_meta;
  size_t in_slot, out_slot;
  struct mmsghdr rmsgs[SLOTS];
  struct iovec riov[SLOTS];
  struct mmsghdr smsgs[SLOTS];
  struct iovec siov[SLOTS];
} Batch;

#define CHECK(call)                                                                                                  \
  do {                                                                                                               \
    if ((call) != napi_ok) {                                                                                         \
      napi_throw_error(env, NULL, "udp_batch: " #call " failed");                                                    \
      return NULL;                                                                                                   \
    }                                                                                                                \
  } while (0)

static napi_value throw_errno(napi_env env, const char *what, int err) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", what, strerror(err));
  napi_value msg, code, error;
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg);
  const char *name = err == EADDRINUSE ? "EADDRINUSE" : err == EACCES ? "EACCES" : err == EADDRNOTAVAIL ? "EADDRNOTAVAIL" : "EUDPBATCH";
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code);
  napi_create_error(env, code, msg, &error);
  napi_set_named_property(env, error, "code", code);
  napi_throw(env, error);
  return NULL;
}

/*
 * bind(host: string (an IP address), port: number, reusePort: boolean) -> [fd, port]: a non-blocking UDP socket
 * bound there; with reusePort, one of a group (SO_REUSEPORT) the kernel shares the port's datagrams among by sender.
 */
static napi_value Bind(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char host[64];
  size_t len;
  int32_t port;
  CHECK(napi_get_value_string_utf8(env, argv[0], host, sizeof host, &len));
  CHECK(napi_get_value_int32(env, argv[1], &port));
  bool reuse_port = false;
  if (argc >= 3) CHECK(napi_get_value_bool(env, argv[2], &reuse_port));
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t sslen;
  int family;
  struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
  if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    family = AF_INET;
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    sslen = sizeof *v4;
  } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    family = AF_INET6;
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    sslen = sizeof *v6;
  } else {
    napi_throw_type_error(env, NULL, "udp_batch.bind: host must be an IPv4 or IPv6 address");
    return NULL;
  }
  int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno);
  if (reuse_port) {
    int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) < 0) {
      int err = errno;
      close(fd);
      return throw_errno(env, "setsockopt SO_REUSEPORT", err);
    }
  }
  if (family == AF_INET6) {
    int off = 0; /* dual stack, as Node's udp6 sockets are */
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
  }
  if (bind(fd, (struct sockaddr *)&ss, sslen) < 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "bind", err);
  }
  if (getsockname(fd, (struct sockaddr *)&ss, &sslen) < 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "getsockname", err);
  }
  napi_value result, jfd, jport;
  CHECK(napi_create_array_with_length(env, 2, &result));
  CHECK(napi_create_int32(env, fd, &jfd));
  CHECK(napi_create_int32(env, ntohs(family == AF_INET ? v4->sin_port : v6->sin6_port), &jport));
  CHECK(napi_set_element(env, result, 0, jfd));
  CHECK(napi_set_element(env, result, 1, jport));
  return result;
}

static void send_answers(Batch *b, int count) {
  if (count <= 0) return;
  if (count > SLOTS) count = SLOTS;
  int n = 0;
  for (int j = 0; j < count; j++) {
    int32_t length = b->out_meta[j * 2];
    int32_t slot = b->out_meta[j * 2 + 1];
    if (length <= 0 || (size_t)length > b->out_slot || slot < 0 || slot >= SLOTS) continue;
    b->siov[n].iov_base = b->out + (size_t)j * b->out_slot;
    b->siov[n].iov_len = (size_t)length;
    memset(&b->smsgs[n].msg_hdr, 0, sizeof b->smsgs[n].msg_hdr);
    b->smsgs[n].msg_hdr.msg_name = b->addrs + (size_t)slot * ADDR_SIZE;
    b->smsgs[n].msg_hdr.msg_namelen = (socklen_t)b->meta[slot * 4 + 1];
    b->smsgs[n].msg_hdr.msg_iov = &b->siov[n];
    b->smsgs[n].msg_hdr.msg_iovlen = 1;
    n++;
  }
  int sent = 0;
  while (sent < n) {
    int r = sendmmsg(b->fd, b->smsgs + sent, (unsigned)(n - sent), MSG_DONTWAIT);
    if (r < 0) {
      if (errno == EINTR) continue;
      /* EAGAIN (send buffer full) or an unreachable client: skip that one answer (UDP may lose it), send the rest */
      sent++;
      continue;
    }
    sent += r;
  }
}

static void on_readable(uv_poll_t *handle, int status, int events) {
  Batch *b = (Batch *)handle->data;
  if (status < 0 || b->closed) return;
  napi_env env = b->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value callback, recv, argv[1], result;
  napi_get_reference_value(env, b->callback, &callback);
  napi_get_global(env, &recv); /* make_callback needs an object as `this` */
  for (int round = 0; round < MAX_ROUNDS && !b->closed; round++) {
    for (int i = 0; i < SLOTS; i++) {
      b->riov[i].iov_base = b->in + (size_t)i * b->in_slot;
      b->riov[i].iov_len = b->in_slot;
      memset(&b->rmsgs[i].msg_hdr, 0, sizeof b->rmsgs[i].msg_hdr);
      b->rmsgs[i].msg_hdr.msg_name = b->addrs + (size_t)i * ADDR_SIZE;
      b->rmsgs[i].msg_hdr.msg_namelen = ADDR_SIZE;
      b->rmsgs[i].msg_hdr.msg_iov = &b->riov[i];
      b->rmsgs[i].msg_hdr.msg_iovlen = 1;
    }
    int n = recvmmsg(b->fd, b->rmsgs, SLOTS, MSG_DONTWAIT, NULL);
    if (n <= 0) break; /* EAGAIN: read everything there was (errors such as ECONNREFUSED: nothing to do) */
    for (int i = 0; i < n; i++) {
      b->meta[i * 4] = (int32_t)b->rmsgs[i].msg_len;
      b->meta[i * 4 + 1] = (int32_t)b->rmsgs[i].msg_hdr.msg_namelen;
      b->meta[i * 4 + 2] = (b->rmsgs[i].msg_hdr.msg_flags & MSG_TRUNC) ? 1 : 0;
      b->meta[i * 4 + 3] = 0;
    }
    napi_create_int32(env, n, &argv[0]);
    int32_t answers = 0;
    if (napi_make_callback(env, b->async, recv, callback, 1, argv, &result) == napi_ok)
      napi_get_value_int32(env, result, &answers);
    else {
      /* the handler threw (it should not): leave the exception to Node, stop this round */
      break;
    }
    send_answers(b, answers);
    if (n < SLOTS) break;
  }
  napi_close_handle_scope(env, scope);
}

static void release(Batch *b) {
  if (--b->refs == 0) free(b);
}

static void free_batch(uv_handle_t *handle) { release((Batch *)handle->data); }

/*
 * Stops polling and closes the descriptor (once). `closed_cb`: what the loop calls once the poll handle has closed
 * (free_batch lets go of the poll handle's share of the batch).
 */
static void shut(Batch *b, uv_close_cb closed_cb) {
  if (b->closed) return;
  b->closed = 1;
  uv_poll_stop(&b->poll);
  close(b->fd);
  uv_close((uv_handle_t *)&b->poll, closed_cb);
}

/*
 * The environment ends (a worker thread that ran the server stops) while the socket is open: close the descriptor
 * now. Left to the end of the thread, the poll handle would be closed without it (a socket left in the port's
 * SO_REUSEPORT group takes a share of the queries and answers none). The handle closes after Node has unloaded this
 * addon for the thread, so no callback of ours may run then: the batch is left allocated (a few KB per thread end).
 */
static void on_env_cleanup(void *data) { shut((Batch *)data, NULL); }

static void finalize(napi_env env, void *data, void *hint) {
  Batch *b = (Batch *)data;
  if (!b->closed) {
    napi_remove_env_cleanup_hook(env, on_env_cleanup, b);
    shut(b, free_batch);
  }
  release(b);
}

static int buffer_of(napi_env env, napi_value value, void **data, size_t *length) {
  bool is;
  if (napi_is_buffer(env, value, &is) != napi_ok || !is) return 0;
  return napi_get_buffer_info(env, value, data, length) == napi_ok;
}

/*
 * open(fd, in, addrs, meta, out, outMeta, onBatch) -> handle: polls fd; onBatch(count) is called with the number
 * of datagrams in the shared buffers and returns the number of answers it wrote to out/outMeta.
 */
static napi_value Open(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 7) {
    napi_throw_type_error(env, NULL, "udp_batch.open: fd, in, addrs, meta, out, outMeta, onBatch");
    return NULL;
  }
  Batch *b = calloc(1, sizeof *b);
  if (!b) {
    napi_throw_error(env, NULL, "udp_batch.open: out of memory");
    return NULL;
  }
  void *data[5];
  size_t lengths[5];
  for (int i = 0; i < 5; i++) {
    if (!buffer_of(env, argv[i + 1], &data[i], &lengths[i])) {
      free(b);
      napi_throw_type_error(env, NULL, "udp_batch.open: the five areas must be Buffers");
      return NULL;
    }
  }
  if (lengths[1] < SLOTS * ADDR_SIZE || lengths[2] < SLOTS * 16 || lengths[4] < SLOTS * 8 || lengths[0] < SLOTS ||
      lengths[3] < SLOTS) {
    free(b);
    napi_throw_range_error(env, NULL, "udp_batch.open: an area is too small for 32 datagrams");
    return NULL;
  }
  CHECK(napi_get_value_int32(env, argv[0], &b->fd));
  b->env = env;
  b->in = data[0];
  b->addrs = data[1];
  b->meta = (int32_t *)data[2];
  b->out = data[3];
  b->out_meta = (int32_t *)data[4];
  b->in_slot = lengths[0] / SLOTS;
  b->out_slot = lengths[3] / SLOTS;
  for (int i = 0; i < 5; i++) CHECK(napi_create_reference(env, argv[i + 1], 1, &b->buffers[i]));
  CHECK(napi_create_reference(env, argv[6], 1, &b->callback));
  napi_value name;
  CHECK(napi_create_string_utf8(env, "UdpBatch", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_async_init(env, NULL, name, &b->async));
  uv_loop_t *loop;
  CHECK(napi_get_uv_event_loop(env, &loop));
  if (uv_poll_init(loop, &b->poll, b->fd) != 0) {
    free(b);
    napi_throw_error(env, NULL, "udp_batch.open: the descriptor cannot be polled");
    return NULL;
  }
  b->poll.data = b;
  b->refs = 2;
  uv_poll_start(&b->poll, UV_READABLE, on_readable);
  CHECK(napi_add_env_cleanup_hook(env, on_env_cleanup, b));
  napi_value handle;
  CHECK(napi_create_object(env, &handle));
  CHECK(napi_wrap(env, handle, b, finalize, NULL, NULL));
  return handle;
}

static Batch *unwrap(napi_env env, napi_value handle) {
  Batch *b = NULL;
  if (napi_unwrap(env, handle, (void **)&b) != napi_ok) return NULL;
  return b;
}

/* sendTo(handle, buffer, addr (a sockaddr as received), addrLength) -> bytes sent, or -errno. */
static napi_value SendTo(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  Batch *b = unwrap(env, argv[0]);
  void *buf, *addr;
  size_t length, addr_size;
  int32_t addr_length;
  if (!b || b->closed || !buffer_of(env, argv[1], &buf, &length) || !buffer_of(env, argv[2], &addr, &addr_size)) {
    napi_throw_type_error(env, NULL, "udp_batch.sendTo: an open handle, a Buffer and an address Buffer");
    return NULL;
  }
  CHECK(napi_get_value_int32(env, argv[3], &addr_length));
  if (addr_length <= 0 || (size_t)addr_length > addr_size) {
    napi_throw_range_error(env, NULL, "udp_batch.sendTo: bad address length");
    return NULL;
  }
  ssize_t r;
  do r = sendto(b->fd, buf, length, MSG_DONTWAIT, (struct sockaddr *)addr, (socklen_t)addr_length);
  while (r < 0 && errno == EINTR);
  napi_value result;
  CHECK(napi_create_int32(env, r < 0 ? -errno : (int32_t)r, &result));
  return result;
}

/* close(handle): stops polling and closes the descriptor. */
static napi_value Close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  Batch *b = NULL;
  if (napi_remove_wrap(env, argv[0], (void **)&b) != napi_ok || !b) return NULL;
  if (!b->closed) napi_remove_env_cleanup_hook(env, on_env_cleanup, b);
  for (int i = 0; i < 5; i++) napi_delete_reference(env, b->buffers[i]);
  napi_delete_reference(env, b->callback);
  napi_async_destroy(env, b->async);
  shut(b, free_batch);
  release(b); /* the JS handle's share: no finalizer will run now */
  return NULL;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"bind", NULL, Bind, NULL, NULL, NULL, napi_default, NULL},
      {"open", NULL, Open, NULL, NULL, NULL, napi_default, NULL},
      {"sendTo", NULL, SendTo, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, Close, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
