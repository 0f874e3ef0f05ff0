/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* buffers and pools: refcounts, reuse, bounds and stale generations */
#include "accel-test.h"
#include "test-stages.h"

static void
init_bytes (AccelType *t, gint64 size)
{
  accel_type_init_bytes (t, ACCEL_MEMORY_DEVICE, size);
}

static void
test_pool_reuse (void)
{
  AccelDevice *dev = accel_device_get_default ();
  g_autoptr (GError) error = NULL;
  AccelBuffer *a, *b, *c;
  AccelPool *pool;
  AccelType t;

  init_bytes (&t, 4096);
  pool = accel_pool_new (dev, &t, 2);
  accel_pool_set_timeout (pool, 0);

  a = accel_pool_acquire (pool, &error);
  g_assert_no_error (error);
  b = accel_pool_acquire (pool, &error);
  g_assert_no_error (error);
  g_assert_true (a != b);
  g_assert_cmpuint (accel_buffer_get_size (a), ==, 4096);
  g_assert_true (accel_buffer_get_pool (a) == pool);
  g_assert_cmpuint (accel_pool_get_n_outstanding (pool), ==, 2);

  /* exhausted: bounded, never grows */
  c = accel_pool_acquire (pool, &error);
  g_assert_null (c);
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT);
  g_clear_error (&error);
  g_assert_cmpuint (accel_pool_get_n_allocated (pool), ==, 2);

  /* a ref keeps it out; the last unref brings it back */
  accel_buffer_ref (a);
  accel_buffer_unref (a);
  g_assert_cmpuint (accel_pool_get_n_outstanding (pool), ==, 2);
  accel_buffer_unref (a);
  g_assert_cmpuint (accel_pool_get_n_outstanding (pool), ==, 1);
  c = accel_pool_acquire (pool, &error);
  g_assert_no_error (error);
  g_assert_true (c == a);
  g_assert_cmpuint (accel_buffer_get_refcount (c), ==, 1);
  g_assert_cmpuint (accel_pool_get_n_allocated (pool), ==, 2);
  g_assert_cmpuint (accel_pool_get_peak_outstanding (pool), ==, 2);

  /* the pool outlives its owner's ref while buffers are out */
  g_object_unref (pool);
  accel_buffer_unref (b);
  accel_buffer_unref (c);
}

typedef struct
{
  AccelPool *pool;
  AccelBuffer *held;
} WaitData;

static gpointer
release_later (gpointer data)
{
  WaitData *wd = data;

  g_usleep (20000);
  accel_buffer_unref (wd->held);
  return NULL;
}

static void
test_pool_waits_bounded (void)
{
  g_autoptr (GError) error = NULL;
  WaitData wd;
  AccelBuffer *again;
  GThread *thread;
  AccelType t;
  gint64 t0;

  init_bytes (&t, 64);
  wd.pool = accel_pool_new (accel_device_get_default (), &t, 1);
  /* far longer than the release takes even on a loaded machine: a waiter
   * woken by its timeout, not by the release, shows */
  accel_pool_set_timeout (wd.pool, 60 * G_USEC_PER_SEC);
  wd.held = accel_pool_acquire (wd.pool, &error);
  g_assert_no_error (error);

  /* a waiter gets the buffer as soon as it comes back */
  t0 = g_get_monotonic_time ();
  thread = g_thread_new ("release", release_later, &wd);
  again = accel_pool_acquire (wd.pool, &error);
  g_assert_no_error (error);
  g_assert_true (again == wd.held);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 30 * G_USEC_PER_SEC);
  g_thread_join (thread);

  /* flushing wakes waiters with STOPPED */
  accel_pool_set_flushing (wd.pool, TRUE);
  g_assert_null (accel_pool_acquire (wd.pool, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  accel_buffer_unref (again);
  g_assert_cmpuint (accel_pool_trim (wd.pool), ==, 1);
  g_assert_cmpuint (accel_pool_get_n_allocated (wd.pool), ==, 0);
  g_object_unref (wd.pool);
}

typedef struct
{
  AccelPool *pool;
  gint stop;
  guint n_acquired;
} TrimRace;

static gpointer
acquire_until_stopped (gpointer data)
{
  TrimRace *r = data;

  while (!g_atomic_int_get (&r->stop))
    {
      g_autoptr (GError) error = NULL;
      AccelBuffer *buf = accel_pool_acquire (r->pool, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (accel_pool_get_n_allocated (r->pool), <=, 2);
      accel_buffer_unref (buf);
      g_atomic_int_inc (&r->n_acquired);
    }
  return NULL;
}

/* a trim while other threads acquire: a buffer keeps its slot until its
 * memory is freed. Trim gave the slots back after the count, and an
 * acquire between them took a slot past the pool's last (valgrind and
 * ASan saw the write; the test-setups run this) */
static void
test_pool_trim_while_acquiring (void)
{
  TrimRace r = { 0 };
  GThread *threads[2];
  AccelType t;
  gint64 end;

  init_bytes (&t, 64);
  r.pool = accel_pool_new (accel_device_get_default (), &t, 2);
  accel_pool_set_timeout (r.pool, 10 * G_USEC_PER_SEC);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("acquire", acquire_until_stopped, &r);
  end = g_get_monotonic_time () + G_USEC_PER_SEC / 2;
  while (g_get_monotonic_time () < end)
    {
      accel_pool_trim (r.pool);
      g_assert_cmpuint (accel_pool_get_n_allocated (r.pool), <=, 2);
    }
  g_atomic_int_set (&r.stop, 1);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  g_assert_cmpuint (g_atomic_int_get (&r.n_acquired), >, 0);
  accel_pool_trim (r.pool);
  g_assert_cmpuint (accel_pool_get_n_allocated (r.pool), ==, 0);
  g_object_unref (r.pool);
}

static void
expect_pool_debug (const char *pattern)
{
  g_test_expect_message ("accel-pool", G_LOG_LEVEL_DEBUG, pattern);
}

/* G_MESSAGES_DEBUG=accel-pool tells what a pool decides, each step once */
static void
test_pool_tells_its_story (void)
{
  g_autoptr (GError) error = NULL;
  AccelBuffer *held;
  AccelPool *pool;
  AccelType t;

  init_bytes (&t, 64);
  pool = accel_pool_new (accel_device_get_default (), &t, 1);
  accel_pool_set_timeout (pool, 0);

  expect_pool_debug ("pool *: allocated buffer 1 of 1");
  held = accel_pool_acquire (pool, &error);
  g_assert_no_error (error);
  g_test_assert_expected_messages ();

  expect_pool_debug ("pool *: '?' timed out: all 1 buffers stayed in use for "
                     "0 ms");
  g_assert_null (accel_pool_acquire (pool, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_TIMEOUT);
  g_clear_error (&error);
  g_test_assert_expected_messages ();

  expect_pool_debug ("pool *: flushing, acquires fail (0 waiting stages "
                     "woken)");
  expect_pool_debug ("pool *: '?' is refused a buffer: the pool is flushing");
  accel_pool_set_flushing (pool, TRUE);
  g_assert_null (accel_pool_acquire (pool, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STOPPED);
  g_test_assert_expected_messages ();

  expect_pool_debug ("pool *: trimmed 1 free buffers; 0 left, 0 of them "
                     "handed out");
  expect_pool_debug ("pool *: freeing 0 buffers; at most 1 of 1 were handed "
                     "out");
  accel_buffer_unref (held);
  g_assert_cmpuint (accel_pool_trim (pool), ==, 1);
  g_object_unref (pool);
  g_test_assert_expected_messages ();
}

static void
test_stale_generation (void)
{
  AccelDevice *dev = accel_device_get_default ();
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelStream) stream = accel_stream_new (dev, &error);
  g_autoptr (AccelBuffer) buf = NULL;
  g_autoptr (AccelBuffer) fresh = NULL;
  AccelType t;
  guint gen;

  g_assert_no_error (error);
  init_bytes (&t, 256);
  buf = accel_buffer_new (dev, &t, &error);
  g_assert_no_error (error);
  gen = accel_buffer_get_generation (buf);
  g_assert_cmpuint (gen, ==, accel_device_get_generation (dev));
  g_assert_true (accel_buffer_acquire_read (buf, stream, &error));

  g_assert_cmpuint (accel_device_bump_generation (dev), ==, gen + 1);
  g_assert_false (accel_buffer_acquire_read (buf, stream, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STALE_BUFFER);
  g_clear_error (&error);
  g_assert_false (accel_buffer_acquire_write (buf, stream, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_STALE_BUFFER);
  g_clear_error (&error);

  fresh = accel_buffer_new (dev, &t, &error);
  g_assert_no_error (error);
  g_assert_true (accel_buffer_acquire_write (fresh, stream, &error));
  g_assert_no_error (error);
}

static void
test_wrapped (void)
{
  static gint freed;
  guint8 data[16] = { 0 };
  AccelType t;
  AccelBuffer *buf;

  init_bytes (&t, sizeof (data));
  t.memory = ACCEL_MEMORY_HOST;
  buf = accel_buffer_new_wrapped (accel_device_get_host (), &t, data,
      sizeof (data), (GDestroyNotify)g_atomic_int_inc, &freed);
  g_assert_true (accel_buffer_get_data (buf) == data);
  accel_buffer_set_sequence (buf, 42);
  accel_buffer_set_pts (buf, 1000);
  g_assert_cmpuint (accel_buffer_get_sequence (buf), ==, 42);
  g_assert_cmpint (accel_buffer_get_pts (buf), ==, 1000);
  g_assert_null (accel_buffer_get_pool (buf));
  accel_buffer_unref (buf);
  g_assert_cmpint (freed, ==, 1);

  /* no destroy function: the caller's memory is left alone (freeing this
   * array, on the stack, would abort) */
  buf = accel_buffer_new_wrapped (
      accel_device_get_host (), &t, data, sizeof (data), NULL, NULL);
  g_assert_true (accel_buffer_get_data (buf) == data);
  accel_buffer_unref (buf);
  data[0] = 1;
  g_assert_cmpint (freed, ==, 1);
}

/* a pool's buffer starts its first frame zeroed, though the memory was
 * freed dirty */
static void
test_starts_zeroed (void)
{
  g_assert_cmpuint (
      test_blank_source_count_unzeroed (accel_device_get_host (), 12), ==, 0);
}

/* bindings' way in and out: bytes wrapped without a copy, of the type's
 * size only; read back as a copy */
static void
test_bytes (void)
{
  static const guint8 data[6] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr (GBytes) bytes = g_bytes_new_static (data, sizeof (data));
  g_autoptr (GBytes) copy = NULL;
  g_autoptr (GError) error = NULL;
  AccelBuffer *buf;
  AccelType t;

  accel_type_init_bytes (&t, ACCEL_MEMORY_DEVICE, sizeof (data));
  buf = accel_buffer_new_from_bytes (&t, bytes, &error);
  g_assert_no_error (error);
  g_assert_true (accel_buffer_get_data (buf) == (gpointer)data);
  g_assert_true (accel_device_is_host (accel_buffer_get_device (buf)));
  g_assert_cmpint (accel_buffer_peek_type (buf)->memory, ==, ACCEL_MEMORY_HOST);
  copy = accel_buffer_dup_bytes (buf, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_get_data (copy, NULL) != (gconstpointer)data);
  g_assert_cmpmem (g_bytes_get_data (copy, NULL), g_bytes_get_size (copy), data,
      sizeof (data));
  accel_buffer_unref (buf);

  accel_type_init_bytes (&t, ACCEL_MEMORY_HOST, sizeof (data) + 1);
  g_assert_null (accel_buffer_new_from_bytes (&t, bytes, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT);
}

/* a type whose size overflows a gsize is refused as such: the message has
 * no byte count for it (it once printed an uninitialised one) */
static void
test_bytes_size_overflows (void)
{
  static const gint64 dims[]
      = { G_GINT64_CONSTANT (1) << 32, G_GINT64_CONSTANT (1) << 32 };
  g_autoptr (GBytes) bytes = g_bytes_new_static ("", 0);
  g_autoptr (GError) error = NULL;
  AccelType t;

  accel_type_init_tensor (&t, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 2, dims);
  g_assert_null (accel_buffer_new_from_bytes (&t, bytes, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_suffix (error->message, ": its size overflows"));
}

/* so is a buffer allocated for it, on the host or from a pool (it got the
 * few bytes its wrapped size said, for a large type) */
static void
test_new_size_overflows (void)
{
  static const gint64 dims[]
      = { G_GINT64_CONSTANT (1) << 32, G_GINT64_CONSTANT (1) << 32 };
  g_autoptr (GError) error = NULL;
  g_autoptr (AccelPool) pool = NULL;
  AccelType t;

  accel_type_init_tensor (&t, ACCEL_DTYPE_F32, ACCEL_MEMORY_HOST, 2, dims);
  g_assert_null (accel_buffer_new (accel_device_get_host (), &t, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_suffix (error->message, ": its size overflows"));
  g_clear_error (&error);

  pool = accel_pool_new (accel_device_get_host (), &t, 1);
  g_assert_null (accel_pool_acquire (pool, &error));
  g_assert_error (error, ACCEL_ERROR, ACCEL_ERROR_INVALID_INPUT);
  g_assert_true (g_str_has_suffix (error->message, ": its size overflows"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  test_stages_register ();
  g_test_add_func ("/pool/reuse-and-refcount", test_pool_reuse);
  g_test_add_func ("/pool/waits-bounded", test_pool_waits_bounded);
  g_test_add_func ("/pool/tells-its-story", test_pool_tells_its_story);
  g_test_add_func (
      "/pool/trim-while-acquiring", test_pool_trim_while_acquiring);
  g_test_add_func ("/buffer/stale-generation", test_stale_generation);
  g_test_add_func ("/buffer/wrapped", test_wrapped);
  g_test_add_func ("/buffer/bytes", test_bytes);
  g_test_add_func ("/buffer/bytes-size-overflows", test_bytes_size_overflows);
  g_test_add_func ("/buffer/new-size-overflows", test_new_size_overflows);
  g_test_add_func ("/pool/starts-zeroed", test_starts_zeroed);
  return g_test_run ();
}
