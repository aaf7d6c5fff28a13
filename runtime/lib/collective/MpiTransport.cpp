//===- MpiTransport.cpp - libtransfuse_mpi.so: the MPI transport ----------===//
//
// The one file that includes mpi.h. Nonblocking all-reduces on
// MPI_COMM_WORLD with errors returned, not fatal, so the runtime can say
// which exchange failed. Only the thread that runs train_step calls in
// (MPI_THREAD_FUNNELED would do; SERIALIZED leaves room for a session on
// another thread).
//===----------------------------------------------------------------------===//
#include "TransportPlugin.h"

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

int report(int code, const char *what, char *error, size_t size) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int length = 0;
  MPI_Error_string(code, text, &length);
  std::snprintf(error, size, "%s: %s", what, text);
  return 1;
}

int init(int32_t *rank, int32_t *size, char *error, size_t errorSize) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    int code =
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (code != MPI_SUCCESS)
      return report(code, "MPI_Init_thread", error, errorSize);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int r = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  *rank = r;
  *size = n;
  return 0;
}

/// MPI's count of `count`, which must fit its int.
bool fitsInt(int64_t count, const char *what, char *error, size_t errorSize) {
  if (count <= INT32_MAX)
    return true;
  std::snprintf(error, errorSize, "%s of %lld elements exceeds MPI's int count",
                what, static_cast<long long>(count));
  return false;
}

/// `started` (an MPI call filling `*handle`) as the plugin's request.
template <typename Start>
int begin(const Start &started, const char *what, void **request, char *error,
          size_t errorSize) {
  auto *handle = new MPI_Request;
  int code = started(handle);
  if (code != MPI_SUCCESS) {
    delete handle;
    return report(code, what, error, errorSize);
  }
  *request = handle;
  return 0;
}

int startSum(void *data, int64_t count, int32_t f64, void **request,
             char *error, size_t errorSize) {
  if (!fitsInt(count, "an all-reduce", error, errorSize))
    return 1;
  return begin(
      [&](MPI_Request *handle) {
        return MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count),
                              f64 ? MPI_DOUBLE : MPI_FLOAT, MPI_SUM,
                              MPI_COMM_WORLD, handle);
      },
      "MPI_Iallreduce", request, error, errorSize);
}

int startBroadcast(void *data, int64_t bytes, int32_t root, void **request,
                   char *error, size_t errorSize) {
  if (!fitsInt(bytes, "a broadcast", error, errorSize))
    return 1;
  return begin(
      [&](MPI_Request *handle) {
        return MPI_Ibcast(data, static_cast<int>(bytes), MPI_BYTE, root,
                          MPI_COMM_WORLD, handle);
      },
      "MPI_Ibcast", request, error, errorSize);
}

int test(void *request, int32_t *done, char *error, size_t errorSize) {
  auto *handle = static_cast<MPI_Request *>(request);
  int flag = 0;
  int code = MPI_Test(handle, &flag, MPI_STATUS_IGNORE);
  if (code != MPI_SUCCESS)
    return report(code, "MPI_Test", error, errorSize);
  *done = flag;
  if (flag)
    delete handle;
  return 0;
}

void abortRun(int32_t code) { MPI_Abort(MPI_COMM_WORLD, code); }

void finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Finalize();
}

const tf_transport kMpi = {TF_TRANSPORT_VERSION, "MPI", init,     startSum,
                           startBroadcast,       test,  abortRun, finalize};

} // namespace

extern "C" __attribute__((visibility("default"))) const tf_transport *
tf_transport_v3() {
  return &kMpi;
}
