/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel nccl plugin: Gloo behind a C interface (see accelgloo.h). A Gloo
 * context is a full mesh of TCP pairs, rendezvoused through the world's
 * store under a prefix of its own; each call turns Gloo's exceptions into
 * a message */
#include "accelgloo.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/broadcast.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace
{

char *
copy_message (const char *what)
{
  char *m = static_cast<char *> (std::malloc (std::strlen (what) + 1));
  if (m)
    std::strcpy (m, what);
  return m;
}

/* Gloo's rendezvous keys, kept in the world's store under a prefix */
class WorldStore : public gloo::rendezvous::Store
{
public:
  WorldStore (const AccelGlooStore &store, const std::string &prefix)
      : store_ (store), prefix_ (prefix)
  {
  }

  void set (const std::string &key, const std::vector<char> &data) override
  {
    char *error = nullptr;
    std::string k = prefix_ + key;
    if (store_.set (store_.user, k.c_str (), data.data (), data.size (), &error)
        != 0)
      throw_message (error);
  }

  std::vector<char> get (const std::string &key) override
  {
    char *error = nullptr;
    size_t n = 0;
    std::string k = prefix_ + key;
    char *v = static_cast<char *> (
        store_.get (store_.user, k.c_str (), &n, &error));
    if (!v)
      throw_message (error);
    std::vector<char> out (v, v + n);
    std::free (v);
    return out;
  }

  /* get waits for a key (up to the world's timeout) */
  void wait (const std::vector<std::string> &keys) override
  {
    for (const auto &key : keys)
      get (key);
  }

  void wait (const std::vector<std::string> &keys,
      const std::chrono::milliseconds &) override
  {
    wait (keys);
  }

private:
  [[noreturn]] static void throw_message (char *error)
  {
    std::string m = error ? error : "the world's store failed";
    std::free (error);
    throw std::runtime_error (m);
  }

  AccelGlooStore store_;
  std::string prefix_;
};

/* Gloo's typed calls take the element size from the type */
template <typename F>
int
by_size (size_t elem_size, char **error, F f)
{
  try
    {
      switch (elem_size)
        {
        case 1:
          f (static_cast<uint8_t *> (nullptr));
          break;
        case 2:
          f (static_cast<uint16_t *> (nullptr));
          break;
        case 4:
          f (static_cast<uint32_t *> (nullptr));
          break;
        case 8:
          f (static_cast<uint64_t *> (nullptr));
          break;
        default:
          throw std::invalid_argument ("elements of 1, 2, 4 or 8 bytes");
        }
      return 0;
    }
  catch (const std::exception &e)
    {
      *error = copy_message (e.what ());
      return -1;
    }
}

} // namespace

struct _AccelGloo
{
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::shared_ptr<gloo::transport::Device> device;
};

extern "C" int
accel_gloo_available (void)
{
  return 1;
}

extern "C" AccelGloo *
accel_gloo_new (int rank, int size, const char *host, const char *prefix,
    const AccelGlooStore *store, int timeout_ms, char **error)
{
  try
    {
      gloo::transport::tcp::attr attr;
      attr.hostname = host;
      WorldStore world_store (*store, prefix);
      auto gloo = std::make_unique<_AccelGloo> ();

      gloo->device = gloo::transport::tcp::CreateDevice (attr);
      gloo->context = std::make_shared<gloo::rendezvous::Context> (rank, size);
      gloo->context->setTimeout (std::chrono::milliseconds (timeout_ms));
      gloo->context->connectFullMesh (world_store, gloo->device);
      return gloo.release ();
    }
  catch (const std::exception &e)
    {
      *error = copy_message (e.what ());
      return nullptr;
    }
}

extern "C" void
accel_gloo_free (AccelGloo *gloo)
{
  delete gloo;
}

extern "C" int
accel_gloo_all_reduce (AccelGloo *gloo, const void *in, void *data,
    size_t count, size_t elem_size, AccelGlooReduceFunc reduce, unsigned tag,
    char **error)
{
  return by_size (elem_size, error, [&] (auto *type) {
    using T = std::remove_pointer_t<decltype (type)>;
    gloo::AllreduceOptions opts (gloo->context);
    if (in)
      opts.setInput (const_cast<T *> (static_cast<const T *> (in)), count);
    opts.setOutput (static_cast<T *> (data), count);
    opts.setReduceFunction (reduce);
    opts.setTag (tag);
    gloo::allreduce (opts);
  });
}

extern "C" int
accel_gloo_reduce (AccelGloo *gloo, void *data, size_t count, size_t elem_size,
    AccelGlooReduceFunc reduce, int root, unsigned tag, char **error)
{
  return by_size (elem_size, error, [&] (auto *type) {
    using T = std::remove_pointer_t<decltype (type)>;
    gloo::ReduceOptions opts (gloo->context);
    opts.setOutput (static_cast<T *> (data), count);
    opts.setReduceFunction (reduce);
    opts.setRoot (root);
    opts.setTag (tag);
    gloo::reduce (opts);
  });
}

extern "C" int
accel_gloo_all_gather (AccelGloo *gloo, const void *in, void *out, size_t count,
    size_t elem_size, unsigned tag, char **error)
{
  return by_size (elem_size, error, [&] (auto *type) {
    using T = std::remove_pointer_t<decltype (type)>;
    gloo::AllgatherOptions opts (gloo->context);
    opts.setInput (const_cast<T *> (static_cast<const T *> (in)), count);
    opts.setOutput (static_cast<T *> (out), count * gloo->context->size);
    opts.setTag (tag);
    gloo::allgather (opts);
  });
}

extern "C" int
accel_gloo_broadcast (AccelGloo *gloo, void *data, size_t count,
    size_t elem_size, int root, unsigned tag, char **error)
{
  return by_size (elem_size, error, [&] (auto *type) {
    using T = std::remove_pointer_t<decltype (type)>;
    gloo::BroadcastOptions opts (gloo->context);
    opts.setOutput (static_cast<T *> (data), count);
    opts.setRoot (root);
    opts.setTag (tag);
    gloo::broadcast (opts);
  });
}

extern "C" int
accel_gloo_send (AccelGloo *gloo, const void *data, size_t bytes, int peer,
    unsigned tag, char **error)
{
  return by_size (1, error, [&] (auto *) {
    auto buf
        = gloo->context->createUnboundBuffer (const_cast<void *> (data), bytes);
    buf->send (peer, tag);
    buf->waitSend (gloo->context->getTimeout ());
  });
}

extern "C" int
accel_gloo_recv (AccelGloo *gloo, void *data, size_t bytes, int peer,
    unsigned tag, char **error)
{
  return by_size (1, error, [&] (auto *) {
    auto buf = gloo->context->createUnboundBuffer (data, bytes);
    buf->recv (peer, tag);
    buf->waitRecv (gloo->context->getTimeout ());
  });
}
