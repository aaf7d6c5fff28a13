//===- TransportPlugin.h - The interface of a transport plugin ---*- C -*-===//
//
// What the runtime asks of the library that carries a data-parallel run's
// messages. The runtime never links one: it opens the plugin (a shared
// library beside it, libtransfuse_mpi.so for MPI) only in a process that
// an MPI launcher started, so a single process needs no MPI at all.
// Plain C, so that a plugin built against any MPI library fits any runtime
// of this version.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_COLLECTIVE_TRANSPORTPLUGIN_H
#define TRANSFUSE_RUNTIME_LIB_COLLECTIVE_TRANSPORTPLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a field changes. */
#define TF_TRANSPORT_VERSION 3

/* Every function returns 0 on success, or non-zero having written a
   one-line message into `error` (`error_size` bytes, NUL included). Every
   exchange is started and then tested until done, so that the runtime can
   give up on a rank that never comes. */
typedef struct tf_transport {
  int32_t version; /* TF_TRANSPORT_VERSION */
  const char *name;
  /* Joins the run; *rank in [0, *size). */
  int (*init)(int32_t *rank, int32_t *size, char *error, size_t error_size);
  /* Starts summing `count` values of `data` over the ranks, in place:
     floats, or doubles with `f64`; *request identifies the exchange until
     test reports it done. */
  int (*start_sum)(void *data, int64_t count, int32_t f64, void **request,
                   char *error, size_t error_size);
  /* Starts giving every rank rank `root`'s `bytes` bytes at `data`. */
  int (*start_broadcast)(void *data, int64_t bytes, int32_t root,
                         void **request, char *error, size_t error_size);
  /* *done = 1 once the exchange of `request` is complete (the request is
     then released); advances the transport's pending exchanges. */
  int (*test)(void *request, int32_t *done, char *error, size_t error_size);
  /* Ends every rank of the run with `code`. */
  void (*abort)(int32_t code);
  /* Leaves the run; no other call follows. */
  void (*finalize)(void);
} tf_transport;

/* The symbol a plugin exports. */
typedef const tf_transport *(*tf_transport_entry)(void);
#define TF_TRANSPORT_ENTRY "tf_transport_v3"

#ifdef __cplusplus
}
#endif

#endif // TRANSFUSE_RUNTIME_LIB_COLLECTIVE_TRANSPORTPLUGIN_H
