/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: communicators (see accelcommunicator.h). A collective
 * whose peer went away, or that failed in NCCL's transport, leaves its
 * communicator unusable: that is ACCEL_ERROR_CONTEXT_POISONED, which ends
 * the rank's worker and makes its supervisor rebuild the world a
 * generation later, where every rank makes its communicators again.
 * On GPUs a communicator is made non-blocking, so that a rank that never
 * comes is a timeout, and its collectives run on a blocking one split
 * from it at the first (see nccl_collectives ()).
 * G_MESSAGES_DEBUG=accel-nccl tells what each communicator is made of */
#define G_LOG_DOMAIN "accel-nccl"

#include "accelcommunicator.h"
#include "accelframeorder.h"
#include "accelwatchdog.h"
#include "accelworldcomm.h"

#include <gio/gio.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

/* what goes before each frame of a pair: whether a frame or the end
 * follows, and the frame's number, so that the receiver numbers its frames
 * as the sender did (a frame the sender's rank skipped leaves a gap, not a
 * shift). Little-endian on the wire */
typedef struct
{
  guint64 sequence;
  guint32 kind;
  guint32 reserved;
} PairHeader;

#define PAIR_FRAME 0
#define PAIR_END 1
#define SCRATCH_SIZE 16
G_STATIC_ASSERT (sizeof (PairHeader) == SCRATCH_SIZE);

struct _AccelCommunicator
{
  AccelStage *stage; /* named in errors */
  gchar *who;        /* "stage 'name' (kind)": how every error starts */
  AccelWorld *world;
  gchar *key;
  guint rank, size;
  guint timeout_ms;
  AccelGloo *gloo;         /* the host backend's */
  ncclComm_t nccl;         /* a GPU's, non-blocking: made, pairs */
  ncclComm_t collectives;  /* blocking, split from nccl at the first */
  gboolean split_done;     /* collectives is made and watched */
  AccelWatchdog *watchdog; /* of what the operations run on */
  gboolean broken;         /* aborted rather than destroyed */
  AccelFrameOrder order;   /* of the frames it took or received */
  guint64 last_frame;      /* atomic: the last operation's frame + 1 (0:
                              none), read by the watchdog's thread */
  guint8 *device_scratch;  /* a pair's header or a collective's first */
  guint8 *host_scratch;    /* frame on a GPU: see ensure_scratch() */
};

/* a member whose stream ended before the frame this one waits on (see
 * accelframeorder.h) explains a peer gone: NULL when none did. The
 * watchdog's question (a GPU's pending operation, whose frame went on):
 * not while this rank's graph is ending */
static gchar *
peer_ended_full (AccelCommunicator *comm, gboolean while_ending)
{
  guint64 last = __atomic_load_n (&comm->last_frame, __ATOMIC_RELAXED);

  if (last == 0)
    return NULL;
  return accel_frame_order_peer_ended (comm->stage, comm->world, comm->key,
      comm->rank, comm->size, last - 1, while_ending);
}

static gchar *
peer_ended (AccelCommunicator *comm)
{
  return peer_ended_full (comm, FALSE);
}

/* TRUE, with @error set and the communicator lost, when a peer ended
 * before the frame that failed: ACCEL_ERROR_PEER_ENDED, the consequence of
 * that rank's end (its own failure, or ranks given different frames), or (this
 * rank's graph ending too, as on Ctrl-C, each rank's where it was) a
 * stream that ends here, ACCEL_ERROR_STREAM_ENDS: the frame is given up, as
 * the peer's graph gave it up, rather than fail the rank */
static gboolean
failed_as_peer_ended (AccelCommunicator *comm, GError **error)
{
  g_autofree gchar *ended = peer_ended_full (comm, TRUE);

  if (!ended)
    return FALSE;
  comm->broken = TRUE;
  g_set_error (error, ACCEL_ERROR,
      accel_stage_graph_is_ending (comm->stage) ? ACCEL_ERROR_STREAM_ENDS
                                                : ACCEL_ERROR_PEER_ENDED,
      "%s: %s", comm->who, ended);
  return TRUE;
}

static gboolean
gloo_failed (
    AccelCommunicator *comm, const char *what, char *message, GError **error)
{
  if (failed_as_peer_ended (comm, error))
    {
      free (message);
      return FALSE;
    }
  comm->broken = TRUE;
  /* interrupted, each rank's streams end where they are: a peer gone
   * before this frame (a pair's, which keeps no end to ask) gives it up */
  if (accel_stage_graph_is_ending (comm->stage))
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STREAM_ENDS,
          "%s: %s failed as the ranks end their streams (interrupted): %s",
          comm->who, what, message ? message : "?");
      free (message);
      return FALSE;
    }
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
      "%s: %s failed on rank %u of the world (generation %u): %s; the "
      "communicator is lost",
      comm->who, what, accel_world_get_rank (comm->world),
      accel_world_get_generation (comm->world), message ? message : "?");
  free (message);
  return FALSE;
}

/* NCCL: a status other than success. A transport or remote failure
 * poisons the communicator; a misuse is the stage's input */
static gboolean
nccl_failed (AccelCommunicator *comm, const char *call, ncclResult_t status,
    GError **error)
{
  const char *last = comm->nccl ? ncclGetLastError (comm->nccl) : NULL;
  gboolean poisoned = status == ncclSystemError || status == ncclRemoteError
                      || status == ncclInternalError
                      || status == ncclUnhandledCudaError;

  /* a call still in progress past the timeout waits for ranks that do not
   * come: the communicator is lost as well (aborted, not waited for again
   * by a destroy), and the world is rebuilt */
  poisoned |= status == ncclInProgress;
  if (poisoned && failed_as_peer_ended (comm, error))
    return FALSE;
  comm->broken |= poisoned;
  g_set_error (error, ACCEL_ERROR,
      poisoned                     ? ACCEL_ERROR_CONTEXT_POISONED
      : status == ncclInvalidUsage ? ACCEL_ERROR_INVALID_INPUT
                                   : ACCEL_ERROR_LIBRARY,
      "%s: %s on rank %u of the world (generation %u): %s%s%s%s", comm->who,
      call, accel_world_get_rank (comm->world),
      accel_world_get_generation (comm->world),
      status == ncclInProgress ? "not done within the world's timeout"
                               : ncclGetErrorString (status),
      last && *last ? ": " : "", last ? last : "",
      poisoned ? "; the communicator is lost" : "");
  return FALSE;
}

/* whether the watchdog found the communicator lost or, with @ask_store,
 * the world's generation was left: TRUE with @error set, and the
 * communicator is broken */
static gboolean
nccl_lost (AccelCommunicator *comm, gboolean ask_store, GError **error)
{
  if (comm->watchdog && !accel_watchdog_check (comm->watchdog, error))
    {
      comm->broken = TRUE;
      return TRUE;
    }
  if (!ask_store || !accel_world_is_left (comm->world))
    return FALSE;
  comm->broken = TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
      "%s: %s on rank %u of the world (generation %u): the communicator is "
      "lost",
      comm->who, ACCEL_WATCHDOG_WORLD_LEFT, accel_world_get_rank (comm->world),
      accel_world_get_generation (comm->world));
  return TRUE;
}

/* the stage's start () was interrupted (its cancellable is current on the
 * thread only there): a communicator half made is aborted, not waited
 * for */
static gboolean
start_interrupted (AccelCommunicator *comm, const char *what, GError **error)
{
  if (!g_cancellable_is_cancelled (g_cancellable_get_current ()))
    return FALSE;
  comm->broken = TRUE;
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED,
      "%s: interrupted in %s on rank %u of the world (generation %u), "
      "waiting for the other ranks",
      comm->who, what, accel_world_get_rank (comm->world),
      accel_world_get_generation (comm->world));
  return TRUE;
}

/* a non-blocking communicator's call may still be in progress: wait for
 * it, up to the world's timeout, until the world moves on or the start is
 * interrupted, and take any error it reported since */
static gboolean
nccl_settle (AccelCommunicator *comm, ncclComm_t on, const char *call,
    ncclResult_t status, GError **error)
{
  gint64 start = g_get_monotonic_time ();
  gint64 deadline = start + (gint64)comm->timeout_ms * G_TIME_SPAN_MILLISECOND;
  gint64 next_ask = start + 500 * G_TIME_SPAN_MILLISECOND;

  if (nccl_lost (comm, FALSE, error))
    return FALSE;
  if (status != ncclSuccess && status != ncclInProgress)
    return nccl_failed (comm, call, status, error);
  for (;;)
    {
      ncclResult_t async = ncclSuccess;
      ncclResult_t got = ncclCommGetAsyncError (on, &async);
      if (got != ncclSuccess)
        return nccl_failed (comm, "ncclCommGetAsyncError", got, error);
      if (async == ncclSuccess)
        return TRUE;
      if (async != ncclInProgress)
        return nccl_failed (comm, call, async, error);
      if (g_get_monotonic_time () > deadline)
        return nccl_failed (comm, call, ncclInProgress, error);
      if (start_interrupted (comm, call, error))
        return FALSE;
      /* a peer started again waits in a later generation, not for us */
      if (g_get_monotonic_time () > next_ask)
        {
          if (nccl_lost (comm, TRUE, error))
            return FALSE;
          next_ask = g_get_monotonic_time () + 500 * G_TIME_SPAN_MILLISECOND;
        }
      /* a launch that NCCL finishes on a thread of its own takes some
       * microseconds: yield for the first millisecond, then sleep between
       * looks (sleeping after a few microseconds of looks can add a sleep
       * of 100 us or more to a small collective) */
      if (g_get_monotonic_time () - start < 1000)
        g_thread_yield ();
      else
        g_usleep (100);
    }
}

/* an operation of @on enqueued on @stream: settled as above, then watched
 * until its work is done (accel_watchdog_enqueued()) */
static gboolean
nccl_enqueued (AccelCommunicator *comm, ncclComm_t on, cudaStream_t stream,
    const char *call, ncclResult_t status, GError **error)
{
  if (!nccl_settle (comm, on, call, status, error))
    return FALSE;
  accel_watchdog_enqueued (comm->watchdog, stream);
  return TRUE;
}

static gboolean
nccl_new (AccelCommunicator *comm, GError **error)
{
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  ncclUniqueId id;
  ncclResult_t status;

  /* NCCL binds the communicator to the current device */
  if (!accel_device_make_current (accel_stage_get_device (comm->stage), error))
    return FALSE;
  /* the communicator's rank 0 makes its id; the others take it from the
   * store, scoped to this generation of the world */
  if (!accel_world_comm_nccl_id (
          comm->world, comm->key, comm->rank == 0, &id, error))
    return FALSE;
  /* non-blocking, so that a rank that never comes is a timeout here */
  config.blocking = 0;
  status = ncclCommInitRankConfig (
      &comm->nccl, (int)comm->size, id, (int)comm->rank, &config);
  if (status != ncclSuccess && status != ncclInProgress)
    return nccl_failed (comm, "ncclCommInitRankConfig", status, error);
  if (!nccl_settle (comm, comm->nccl, "ncclCommInitRankConfig", status, error))
    return FALSE;
  comm->watchdog = accel_watchdog_new (comm->nccl, comm->world, comm->who,
      (AccelWatchdogExplain)peer_ended, comm, error);
  return comm->watchdog != NULL;
}

/* the communicator the collectives run on: a blocking one, split from the
 * non-blocking one at the first collective. NCCL launches each operation of
 * a non-blocking communicator from a thread it starts for that call: on 2
 * H200 the stage's 64 KB all-reduce took 25.3 us a frame that way and 12.1
 * us on the blocking one, and at 256 MB 1.02 against 0.90 ms (bench-nccl,
 * docs/multi-gpu.md). The split itself is a call of the non-blocking one,
 * so a rank that never comes to it is still a timeout; the pairs' sends
 * and receives stay on the non-blocking one, as each waits for its peer on
 * the host */
static ncclComm_t
nccl_collectives (AccelCommunicator *comm, GError **error)
{
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  AccelWatchdog *dog;

  if (comm->split_done)
    return comm->collectives;
  /* a split given up at the timeout may still finish, inside NCCL, into
   * comm->collectives (not into this frame's stack): the communicator is
   * lost, and its free aborts whatever came of it */
  if (comm->broken)
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_CONTEXT_POISONED,
          "%s: rank %u of the world (generation %u) cannot run "
          "collectives: the communicator is lost",
          comm->who, accel_world_get_rank (comm->world),
          accel_world_get_generation (comm->world));
      return NULL;
    }
  config.blocking = 1;
  if (!nccl_settle (comm, comm->nccl, "ncclCommSplit",
          ncclCommSplit (
              comm->nccl, 0, (int)comm->rank, &comm->collectives, &config),
          error))
    return NULL;
  if (!comm->collectives)
    {
      nccl_failed (comm, "ncclCommSplit", ncclInternalError, error);
      return NULL;
    }
  /* the watchdog watches what the operations run on from now */
  dog = accel_watchdog_new (comm->collectives, comm->world, comm->who,
      (AccelWatchdogExplain)peer_ended, comm, error);
  if (!dog)
    {
      comm->broken = TRUE;
      return NULL;
    }
  accel_watchdog_free (comm->watchdog);
  comm->watchdog = dog;
  comm->split_done = TRUE;
  return comm->collectives;
}

static gboolean
gloo_new (AccelCommunicator *comm, GError **error)
{
  char *message = NULL;

  if (!accel_gloo_available ())
    {
      g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_NOT_SUPPORTED,
          "stage '%s' (%s) runs on GPUs only: this accel was built without "
          "Gloo (libgloo-dev), which runs the collectives on the host backend",
          accel_stage_get_name (comm->stage),
          accel_stage_get_kind_name (comm->stage));
      return FALSE;
    }
  comm->gloo = accel_world_comm_gloo (
      comm->world, comm->key, comm->rank, comm->size, &message);
  /* Gloo's own error says only what its store call said */
  if (!comm->gloo && start_interrupted (comm, "connecting the ranks", error))
    {
      free (message);
      return FALSE;
    }
  if (!comm->gloo)
    return gloo_failed (comm, "connecting the ranks", message, error);
  return TRUE;
}

/**
 * accel_communicator_new:
 * @stage: the stage it serves (named in errors; its device picks NCCL or
 *   Gloo)
 * @world: the joined world
 * @key: the communicator's name in the store, the same on every member
 * @rank: this process's place among the members
 * @size: the number of members
 * @error: return location for a #GError, or %NULL
 *
 * Makes a communicator of @size members, waiting for all of them (up to
 * the world's timeout).
 *
 * Returns: (transfer full): the communicator, or %NULL. Called from the
 * stage's thread, in its start().
 */
AccelCommunicator *
accel_communicator_new (AccelStage *stage, AccelWorld *world, const char *key,
    guint rank, guint size, GError **error)
{
  AccelCommunicator *comm = g_new0 (AccelCommunicator, 1);
  gboolean ok;

  comm->stage = stage;
  comm->who = g_strdup_printf ("stage '%s' (%s)", accel_stage_get_name (stage),
      accel_stage_get_kind_name (stage));
  comm->world = g_object_ref (world);
  comm->key = g_strdup (key);
  comm->rank = rank;
  comm->size = size;
  comm->timeout_ms = accel_world_get_timeout_ms (world);
  ok = accel_stage_is_host (stage) ? gloo_new (comm, error)
                                   : nccl_new (comm, error);
  if (!ok)
    {
      accel_communicator_free (comm);
      return NULL;
    }
  g_debug ("stage '%s': communicator '%s' of %u, this rank %u, generation "
           "%u, through %s",
      accel_stage_get_name (stage), key, size, rank,
      accel_world_get_generation (world),
      accel_stage_is_host (stage) ? "Gloo" : "NCCL");
  return comm;
}

/* an error NCCL noticed since the last frame (a peer gone) leaves work
 * that would never end: abort it rather than wait for it */
static void
nccl_free (AccelCommunicator *comm, ncclComm_t nccl)
{
  ncclResult_t async = ncclSuccess;

  if (!nccl)
    return;
  if (ncclCommGetAsyncError (nccl, &async) != ncclSuccess
      || async != ncclSuccess)
    comm->broken = TRUE;
  if (comm->broken)
    ncclCommAbort (nccl);
  else
    ncclCommDestroy (nccl);
}

/**
 * accel_communicator_abandon:
 * @comm: a communicator
 *
 * Its peers will not meet it again (its stage restarts alone, which fails
 * the world): accel_communicator_free() then aborts it rather than wait for
 * its work or its peers. Called from the stage's thread.
 */
void
accel_communicator_abandon (AccelCommunicator *comm)
{
  comm->broken = TRUE;
}

/**
 * accel_communicator_free:
 * @comm: (transfer full): a communicator
 *
 * A communicator that failed is aborted (ncclCommAbort: nothing waits for
 * the ranks that are gone), any other destroyed. Called from the stage's
 * thread, in its stop().
 */
void
accel_communicator_free (AccelCommunicator *comm)
{
  /* a blocking communicator's destroy waits on the host for its work,
   * which a peer that is gone never ends: only once that is done */
  if (comm->split_done && !comm->broken
      && !accel_watchdog_wait_done (comm->watchdog))
    comm->broken = TRUE;
  if (comm->watchdog)
    accel_watchdog_free (comm->watchdog);
  nccl_free (comm, comm->collectives);
  nccl_free (comm, comm->nccl);
  if (comm->device_scratch)
    cudaFree (comm->device_scratch);
  if (comm->host_scratch)
    cudaFreeHost (comm->host_scratch);
  if (comm->gloo)
    accel_gloo_free (comm->gloo);
  g_object_unref (comm->world);
  g_free (comm->key);
  g_free (comm->who);
  g_free (comm);
}

guint
accel_communicator_get_size (AccelCommunicator *comm)
{
  return comm->size;
}

guint
accel_communicator_get_rank (AccelCommunicator *comm)
{
  return comm->rank;
}

static ncclDataType_t
nccl_dtype (AccelDType dtype)
{
  switch (dtype)
    {
    case ACCEL_DTYPE_F32:
      return ncclFloat32;
    case ACCEL_DTYPE_F64:
      return ncclFloat64;
    case ACCEL_DTYPE_F16:
      return ncclFloat16;
    case ACCEL_DTYPE_BF16:
      return ncclBfloat16;
    case ACCEL_DTYPE_I32:
      return ncclInt32;
    case ACCEL_DTYPE_U32:
      return ncclUint32;
    default:
      return ncclUint8;
    }
}

static ncclRedOp_t
nccl_op (AccelReduceOp op)
{
  static const ncclRedOp_t ops[]
      = { ncclSum, ncclProd, ncclMin, ncclMax, ncclAvg };
  return ops[op];
}

static AccelDType
frame_dtype (AccelBuffer *buffer)
{
  return accel_buffer_peek_type (buffer)->dtype;
}

static gsize
n_elements (AccelBuffer *buffer)
{
  return accel_buffer_get_size (buffer)
         / accel_dtype_get_size (frame_dtype (buffer));
}

/**
 * accel_communicator_end:
 * @comm: a communicator
 * @error: return location for a #GError, or %NULL
 *
 * Tells the other members that this one's stream ended (see
 * accelframeorder.h), so that one left waiting on a later frame fails
 * saying so, rather than as a lost peer.
 *
 * Returns: %TRUE when the store has it. Stage thread, at the end of its
 * stream.
 */
gboolean
accel_communicator_end (AccelCommunicator *comm, GError **error)
{
  return accel_frame_order_mark_end (
      &comm->order, comm->stage, comm->world, comm->key, comm->rank, error);
}

/**
 * accel_communicator_copy:
 * @frame: the frame, for its stream
 * @in: the buffer to copy
 * @out: where, as large as @in
 * @error: return location for a #GError, or %NULL
 *
 * Copies @in to @out on the frame's stream (on the host backend, at once).
 *
 * Returns: %TRUE when enqueued or done. Stage thread.
 */
gboolean
accel_communicator_copy (
    AccelFrame *frame, AccelBuffer *in, AccelBuffer *out, GError **error)
{
  if (accel_device_is_host (accel_buffer_get_device (in)))
    {
      memcpy (accel_buffer_get_data (out), accel_buffer_get_data (in),
          accel_buffer_get_size (in));
      return TRUE;
    }
  return accel_cuda_check (
      cudaMemcpyAsync (accel_buffer_get_data (out), accel_buffer_get_data (in),
          accel_buffer_get_size (in), cudaMemcpyDeviceToDevice,
          accel_stream_get_handle (frame->stream)),
      error);
}

/* Gloo's tag: frames pair up by their sequence on every rank; the first
 * frame's exchange has one of its own */
#define TAG(frame) ((unsigned)((frame)->sequence & 0xffffffffu))
#define TAG_FIRST 0xfffffffeu

/* 16 device bytes for a pair's header or a collective's first frame, and
 * the page-locked host copy they are read back into */
static gboolean
ensure_scratch (AccelCommunicator *comm, GError **error)
{
  if (comm->device_scratch)
    return TRUE;
  return accel_cuda_check (
             cudaMalloc ((void **)&comm->device_scratch, SCRATCH_SIZE), error)
         && accel_cuda_check (
             cudaMallocHost ((void **)&comm->host_scratch, SCRATCH_SIZE),
             error);
}

/* the least and greatest first frame over the members, as the greatest
 * of (n, -n) in f64 (exact below 2^53) on the communicator itself, so that
 * a member gone fails it as it would fail the collective; once, with a
 * wait on the host on a GPU */
static gboolean
exchange_first (AccelCommunicator *comm, AccelFrame *frame, guint64 *low,
    guint64 *high, GError **error)
{
  double mine[2] = { (double)frame->sequence, -(double)frame->sequence };
  double all[2];
  char *message = NULL;

  if (comm->nccl)
    {
      cudaStream_t stream = accel_stream_get_handle (frame->stream);
      ncclComm_t on = nccl_collectives (comm, error);

      if (!on || !ensure_scratch (comm, error)
          || !accel_cuda_check (
              cudaMemcpyAsync (comm->device_scratch, mine, sizeof mine,
                  cudaMemcpyHostToDevice, stream),
              error)
          || !nccl_enqueued (comm, on, stream, "ncclAllReduce",
              ncclAllReduce (comm->device_scratch, comm->device_scratch, 2,
                  ncclFloat64, ncclMax, on, stream),
              error)
          || !accel_cuda_check (
              cudaMemcpyAsync (comm->host_scratch, comm->device_scratch,
                  sizeof all, cudaMemcpyDeviceToHost, stream),
              error)
          || !accel_cuda_check (cudaStreamSynchronize (stream), error))
        return FALSE;
      memcpy (all, comm->host_scratch, sizeof all);
    }
  else
    {
      memcpy (all, mine, sizeof all);
      if (accel_gloo_all_reduce (comm->gloo, NULL, all, 2, sizeof (double),
              accel_reduce_host_func (ACCEL_DTYPE_F64, ACCEL_REDUCE_MAX),
              TAG_FIRST, &message)
          != 0)
        return gloo_failed (comm, "exchanging the first frame", message, error);
    }
  *high = (guint64)all[0];
  *low = (guint64)-all[1];
  return TRUE;
}

/* collectives pair the ranks' frames by their order (see
 * accelframeorder.h): one out of order loses the communicator */
static gboolean
collective_in_order (AccelCommunicator *comm, AccelFrame *frame, GError **error)
{
  guint64 low = 0, high = 0;

  __atomic_store_n (&comm->last_frame, frame->sequence + 1, __ATOMIC_RELAXED);
  if (!accel_frame_order_started (&comm->order)
      && !exchange_first (comm, frame, &low, &high, error))
    return FALSE;
  if (accel_frame_order_collective (&comm->order, comm->who,
          accel_world_get_rank (comm->world), frame->sequence, low, high,
          error))
    return TRUE;
  comm->broken = TRUE;
  return FALSE;
}

/**
 * accel_communicator_all_reduce:
 * @comm: a communicator
 * @frame: the frame: input 0 reduced over the ranks into output 0
 * @dtype: the element type
 * @op: the reduction
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE when enqueued (GPU) or done (host). Stage thread.
 */
gboolean
accel_communicator_all_reduce (AccelCommunicator *comm, AccelFrame *frame,
    AccelDType dtype, AccelReduceOp op, GError **error)
{
  AccelBuffer *in = frame->inputs[0], *out = frame->outputs[0];
  gsize n = n_elements (in);
  char *message = NULL;

  if (!collective_in_order (comm, frame, error))
    return FALSE;
  if (comm->nccl)
    {
      ncclComm_t on = nccl_collectives (comm, error);

      return on
             && nccl_enqueued (comm, on,
                 accel_stream_get_handle (frame->stream), "ncclAllReduce",
                 ncclAllReduce (accel_buffer_get_data (in),
                     accel_buffer_get_data (out), n, nccl_dtype (dtype),
                     nccl_op (op), on, accel_stream_get_handle (frame->stream)),
                 error);
    }
  if (op == ACCEL_REDUCE_AVG)
    {
      /* scaled before the sum: in place in the output */
      memcpy (accel_buffer_get_data (out), accel_buffer_get_data (in),
          accel_buffer_get_size (in));
      accel_reduce_host_avg_before (
          dtype, accel_buffer_get_data (out), n, comm->size);
    }
  if (accel_gloo_all_reduce (comm->gloo,
          op == ACCEL_REDUCE_AVG ? NULL : accel_buffer_get_data (in),
          accel_buffer_get_data (out), n, accel_dtype_get_size (dtype),
          accel_reduce_host_func (dtype, op), TAG (frame), &message)
      != 0)
    return gloo_failed (comm, "all-reduce", message, error);
  if (op == ACCEL_REDUCE_AVG)
    accel_reduce_host_avg_after (
        dtype, accel_buffer_get_data (out), n, comm->size);
  return TRUE;
}

/**
 * accel_communicator_reduce:
 * @comm: a communicator
 * @frame: the frame: input 0 reduced over the ranks into output 0 of rank
 *   @root; the other ranks' output 0 is their input
 * @dtype: the element type
 * @op: the reduction
 * @root: the rank that gets the result
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE when enqueued (GPU) or done (host). Stage thread.
 */
gboolean
accel_communicator_reduce (AccelCommunicator *comm, AccelFrame *frame,
    AccelDType dtype, AccelReduceOp op, guint root, GError **error)
{
  AccelBuffer *in = frame->inputs[0], *out = frame->outputs[0];
  gsize n = n_elements (in), bytes = accel_buffer_get_size (in);
  g_autofree guint8 *scratch = NULL;
  gpointer data;
  char *message = NULL;

  if (!collective_in_order (comm, frame, error))
    return FALSE;
  if (comm->nccl)
    {
      /* NCCL writes only the root's output */
      ncclComm_t on = nccl_collectives (comm, error);

      if (!on
          || (comm->rank != root
              && !accel_communicator_copy (frame, in, out, error)))
        return FALSE;
      return nccl_enqueued (comm, on, accel_stream_get_handle (frame->stream),
          "ncclReduce",
          ncclReduce (accel_buffer_get_data (in), accel_buffer_get_data (out),
              n, nccl_dtype (dtype), nccl_op (op), (int)root, on,
              accel_stream_get_handle (frame->stream)),
          error);
    }
  /* Gloo works in place, and leaves partial sums on the other ranks */
  memcpy (accel_buffer_get_data (out), accel_buffer_get_data (in), bytes);
  scratch = comm->rank == root ? NULL
                               : g_memdup2 (accel_buffer_get_data (in), bytes);
  data = scratch ? scratch : accel_buffer_get_data (out);
  if (op == ACCEL_REDUCE_AVG)
    accel_reduce_host_avg_before (dtype, data, n, comm->size);
  if (accel_gloo_reduce (comm->gloo, data, n, accel_dtype_get_size (dtype),
          accel_reduce_host_func (dtype, op), (int)root, TAG (frame), &message)
      != 0)
    return gloo_failed (comm, "reduce", message, error);
  if (op == ACCEL_REDUCE_AVG && comm->rank == root)
    accel_reduce_host_avg_after (dtype, data, n, comm->size);
  return TRUE;
}

/**
 * accel_communicator_reduce_scatter:
 * @comm: a communicator
 * @frame: the frame: input 0 reduced over the ranks, and part r of the
 *   result (output 0's size) in rank r's output 0
 * @dtype: the element type
 * @op: the reduction
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE when enqueued (GPU) or done (host). Stage thread.
 */
gboolean
accel_communicator_reduce_scatter (AccelCommunicator *comm, AccelFrame *frame,
    AccelDType dtype, AccelReduceOp op, GError **error)
{
  AccelBuffer *in = frame->inputs[0], *out = frame->outputs[0];
  gsize n = n_elements (in), part = accel_buffer_get_size (out);
  g_autofree guint8 *all = NULL;
  char *message = NULL;

  if (!collective_in_order (comm, frame, error))
    return FALSE;
  if (comm->nccl)
    {
      ncclComm_t on = nccl_collectives (comm, error);

      return on
             && nccl_enqueued (comm, on,
                 accel_stream_get_handle (frame->stream), "ncclReduceScatter",
                 ncclReduceScatter (accel_buffer_get_data (in),
                     accel_buffer_get_data (out), n_elements (out),
                     nccl_dtype (dtype), nccl_op (op), on,
                     accel_stream_get_handle (frame->stream)),
                 error);
    }
  /* Gloo has no reduce-scatter of its own: the whole reduction, then this
   * rank's part */
  all = g_memdup2 (accel_buffer_get_data (in), accel_buffer_get_size (in));
  if (op == ACCEL_REDUCE_AVG)
    accel_reduce_host_avg_before (dtype, all, n, comm->size);
  if (accel_gloo_all_reduce (comm->gloo, NULL, all, n,
          accel_dtype_get_size (dtype), accel_reduce_host_func (dtype, op),
          TAG (frame), &message)
      != 0)
    return gloo_failed (comm, "reduce-scatter", message, error);
  memcpy (accel_buffer_get_data (out), all + comm->rank * part, part);
  if (op == ACCEL_REDUCE_AVG)
    accel_reduce_host_avg_after (
        dtype, accel_buffer_get_data (out), n_elements (out), comm->size);
  return TRUE;
}

/**
 * accel_communicator_all_gather:
 * @comm: a communicator
 * @frame: the frame: every rank's input 0, in rank order, in output 0
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE when enqueued (GPU) or done (host). Stage thread.
 */
gboolean
accel_communicator_all_gather (
    AccelCommunicator *comm, AccelFrame *frame, GError **error)
{
  AccelBuffer *in = frame->inputs[0], *out = frame->outputs[0];
  AccelDType dtype = frame_dtype (in);
  char *message = NULL;

  if (!collective_in_order (comm, frame, error))
    return FALSE;
  if (comm->nccl)
    {
      ncclComm_t on = nccl_collectives (comm, error);

      return on
             && nccl_enqueued (comm, on,
                 accel_stream_get_handle (frame->stream), "ncclAllGather",
                 ncclAllGather (accel_buffer_get_data (in),
                     accel_buffer_get_data (out), n_elements (in),
                     nccl_dtype (dtype), on,
                     accel_stream_get_handle (frame->stream)),
                 error);
    }
  if (accel_gloo_all_gather (comm->gloo, accel_buffer_get_data (in),
          accel_buffer_get_data (out), n_elements (in),
          accel_dtype_get_size (dtype), TAG (frame), &message)
      != 0)
    return gloo_failed (comm, "all-gather", message, error);
  return TRUE;
}

/**
 * accel_communicator_broadcast:
 * @comm: a communicator
 * @frame: the frame: rank @root's input 0 in every rank's output 0
 * @root: the rank whose data goes to all
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE when enqueued (GPU) or done (host). Stage thread.
 */
gboolean
accel_communicator_broadcast (
    AccelCommunicator *comm, AccelFrame *frame, guint root, GError **error)
{
  AccelBuffer *in = frame->inputs[0], *out = frame->outputs[0];
  AccelDType dtype = frame_dtype (in);
  char *message = NULL;

  if (!collective_in_order (comm, frame, error))
    return FALSE;
  if (comm->nccl)
    {
      ncclComm_t on = nccl_collectives (comm, error);

      return on
             && nccl_enqueued (comm, on,
                 accel_stream_get_handle (frame->stream), "ncclBroadcast",
                 ncclBroadcast (accel_buffer_get_data (in),
                     accel_buffer_get_data (out), n_elements (in),
                     nccl_dtype (dtype), (int)root, on,
                     accel_stream_get_handle (frame->stream)),
                 error);
    }
  if (comm->rank == root)
    memcpy (accel_buffer_get_data (out), accel_buffer_get_data (in),
        accel_buffer_get_size (in));
  if (accel_gloo_broadcast (comm->gloo, accel_buffer_get_data (out),
          n_elements (in), accel_dtype_get_size (dtype), (int)root, TAG (frame),
          &message)
      != 0)
    return gloo_failed (comm, "broadcast", message, error);
  return TRUE;
}

/* Gloo matches a pair's messages by slot, in order */
#define SLOT_HEADER 0
#define SLOT_DATA 1

/* on a GPU the header is copied into the device bytes on @stream, after
 * the last one's send there: a copy from pageable memory, which the driver
 * has taken when the call returns */
static gboolean
send_header (AccelCommunicator *comm, cudaStream_t stream, guint32 kind,
    guint64 sequence, guint peer, GError **error)
{
  PairHeader header = { GUINT64_TO_LE (sequence), GUINT32_TO_LE (kind), 0 };
  char *message = NULL;

  if (comm->nccl)
    return ensure_scratch (comm, error)
           && accel_cuda_check (
               cudaMemcpyAsync (comm->device_scratch, &header, sizeof header,
                   cudaMemcpyHostToDevice, stream),
               error)
           && nccl_enqueued (comm, comm->nccl, stream, "ncclSend",
               ncclSend (comm->device_scratch, sizeof header, ncclUint8,
                   (int)peer, comm->nccl, stream),
               error);
  if (accel_gloo_send (
          comm->gloo, &header, sizeof header, (int)peer, SLOT_HEADER, &message)
      != 0)
    return gloo_failed (comm, "send", message, error);
  return TRUE;
}

/**
 * accel_communicator_send:
 * @comm: a communicator of two
 * @frame: the frame, for its stream and number
 * @buffer: what to send
 * @peer: the member that receives
 * @error: return location for a #GError, or %NULL
 *
 * Sends a frame to the peer's accel_communicator_recv(), with its number.
 *
 * Returns: %TRUE when enqueued (GPU) or sent (host). Stage thread.
 */
gboolean
accel_communicator_send (AccelCommunicator *comm, AccelFrame *frame,
    AccelBuffer *buffer, guint peer, GError **error)
{
  cudaStream_t stream = accel_stream_get_handle (frame->stream);
  char *message = NULL;

  __atomic_store_n (&comm->last_frame, frame->sequence + 1, __ATOMIC_RELAXED);
  accel_frame_order_sent (&comm->order, frame->sequence);
  if (!send_header (comm, stream, PAIR_FRAME, frame->sequence, peer, error))
    return FALSE;
  if (comm->nccl)
    return nccl_enqueued (comm, comm->nccl, stream, "ncclSend",
        ncclSend (accel_buffer_get_data (buffer), n_elements (buffer),
            nccl_dtype (frame_dtype (buffer)), (int)peer, comm->nccl, stream),
        error);
  if (accel_gloo_send (comm->gloo, accel_buffer_get_data (buffer),
          accel_buffer_get_size (buffer), (int)peer, SLOT_DATA, &message)
      != 0)
    return gloo_failed (comm, "send", message, error);
  return TRUE;
}

/**
 * accel_communicator_send_end:
 * @comm: a communicator of two
 * @stream: the stage's stream
 * @peer: the member that receives
 * @error: return location for a #GError, or %NULL
 *
 * Tells the peer's accel_communicator_recv() that no frame follows, waits
 * until that is sent, then for the receiver's end of stream.
 *
 * Returns: %TRUE when sent; %FALSE with %ACCEL_ERROR_PEER_ENDED when
 * the receiver ended before the last frame sent. Stage thread, at the end
 * of its stream.
 */
gboolean
accel_communicator_send_end (
    AccelCommunicator *comm, AccelStream *stream, guint peer, GError **error)
{
  cudaStream_t handle = stream ? accel_stream_get_handle (stream) : NULL;

  if (!send_header (comm, handle, PAIR_END, 0, peer, error)
      || (comm->nccl
          && !accel_cuda_check (cudaStreamSynchronize (handle), error)))
    return FALSE;
  /* NCCL or a socket may take frames past a receiver's num-buffers
   * without a word: its end says so */
  accel_frame_order_wait_for_end (
      comm->stage, comm->world, comm->key, peer, comm->timeout_ms);
  /* interrupted, each rank's stream ends where it is */
  return accel_stage_graph_is_ending (comm->stage)
         || !failed_as_peer_ended (comm, error);
}

/* the peer's next header; on a GPU a wait on the host, as the receiver
 * must know whether a frame follows to enqueue it */
static gboolean
recv_header (AccelCommunicator *comm, cudaStream_t stream, guint peer,
    PairHeader *header, GError **error)
{
  char *message = NULL;

  if (!comm->nccl)
    {
      if (accel_gloo_recv (comm->gloo, header, sizeof *header, (int)peer,
              SLOT_HEADER, &message)
          != 0)
        return gloo_failed (comm, "receive", message, error);
      return TRUE;
    }
  if (!ensure_scratch (comm, error)
      || !nccl_enqueued (comm, comm->nccl, stream, "ncclRecv",
          ncclRecv (comm->device_scratch, sizeof *header, ncclUint8, (int)peer,
              comm->nccl, stream),
          error)
      || !accel_cuda_check (
          cudaMemcpyAsync (comm->host_scratch, comm->device_scratch,
              sizeof *header, cudaMemcpyDeviceToHost, stream),
          error)
      || !accel_cuda_check (cudaStreamSynchronize (stream), error))
    return FALSE;
  memcpy (header, comm->host_scratch, sizeof *header);
  return TRUE;
}

/**
 * accel_communicator_recv:
 * @comm: a communicator of two
 * @frame: the frame, for its stream
 * @buffer: where the data goes
 * @peer: the member that sends
 * @peer_rank: the sender's rank in the world (named in messages)
 * @sequence: (out): the number the sender gave the frame
 * @ended: (out): set when the sender's stream ended instead
 * @error: return location for a #GError, or %NULL
 *
 * Receives the peer's next frame. On a GPU it waits on the host for the
 * header that says whether one comes, then enqueues the frame. Frames of
 * the sender's stream that never came (its rank skipped them) are named on
 * stderr.
 *
 * Returns: %TRUE when enqueued (GPU) or received (host), or when
 * @ended. Stage thread.
 */
gboolean
accel_communicator_recv (AccelCommunicator *comm, AccelFrame *frame,
    AccelBuffer *buffer, guint peer, guint peer_rank, guint64 *sequence,
    gboolean *ended, GError **error)
{
  cudaStream_t stream = accel_stream_get_handle (frame->stream);
  PairHeader header;
  char *message = NULL;

  *ended = FALSE;
  if (!recv_header (comm, stream, peer, &header, error))
    return FALSE;
  if ((*ended = GUINT32_FROM_LE (header.kind) == PAIR_END))
    return TRUE;
  *sequence = GUINT64_FROM_LE (header.sequence);
  if (!accel_frame_order_received (
          &comm->order, comm->who, peer_rank, *sequence, error))
    {
      comm->broken = TRUE;
      return FALSE;
    }
  if (comm->nccl)
    return nccl_enqueued (comm, comm->nccl, stream, "ncclRecv",
        ncclRecv (accel_buffer_get_data (buffer), n_elements (buffer),
            nccl_dtype (frame_dtype (buffer)), (int)peer, comm->nccl, stream),
        error);
  if (accel_gloo_recv (comm->gloo, accel_buffer_get_data (buffer),
          accel_buffer_get_size (buffer), (int)peer, SLOT_DATA, &message)
      != 0)
    return gloo_failed (comm, "receive", message, error);
  return TRUE;
}
