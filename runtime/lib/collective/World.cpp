//===- World.cpp - Joining a data-parallel run ----------------------------===//
#include "World.h"

#include "../Runtime.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <thread>

namespace transfuse::rt {
namespace {

constexpr const char *kPlugin = "libtransfuse_mpi.so";
constexpr const char *kTimeoutVariable = "TRANSFUSE_COLLECTIVE_TIMEOUT";

/// Whether an MPI launcher started this process: Open MPI's mpirun, or a
/// PMI/PMIx launcher (MPICH's Hydra, Slurm's srun).
bool launchedByMpi() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name))
      return true;
  return false;
}

/// The plugin beside the runtime library itself.
std::string pluginPath() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void *>(&launchedByMpi), &info) ||
      !info.dli_fname)
    fail(TF_ERROR_UNSUPPORTED,
         "cannot tell where the runtime library lies to find " +
             std::string(kPlugin));
  std::string self = info.dli_fname;
  size_t slash = self.rfind('/');
  return (slash == std::string::npos ? std::string(".")
                                     : self.substr(0, slash)) +
         "/" + kPlugin;
}

const tf_transport *openPlugin() {
  std::string path = pluginPath();
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library)
    fail(TF_ERROR_UNSUPPORTED,
         "this process was started by an MPI launcher, but the runtime's "
         "MPI transport cannot be loaded (build with Open MPI's "
         "libopenmpi-dev installed): " +
             std::string(dlerror()));
  auto entry =
      reinterpret_cast<tf_transport_entry>(dlsym(library, TF_TRANSPORT_ENTRY));
  const tf_transport *transport = entry ? entry() : nullptr;
  if (!transport || transport->version != TF_TRANSPORT_VERSION)
    fail(TF_ERROR_UNSUPPORTED, inQuotes(path) +
                                   " is not a transport of this runtime "
                                   "(version " +
                                   std::to_string(TF_TRANSPORT_VERSION) + ")");
  return transport;
}

double timeoutSeconds() {
  const char *text = std::getenv(kTimeoutVariable);
  if (!text)
    return 60.0;
  char *end = nullptr;
  errno = 0;
  double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0 || !(seconds > 0) ||
      seconds > 1e6)
    fail(TF_ERROR_INVALID_ARGUMENT,
         std::string(kTimeoutVariable) + "=" + inQuotes(text) +
             ": expected a number of seconds in (0, 1000000]");
  return seconds;
}

const tf_transport *finalizing = nullptr;
void finalizeAtExit() { finalizing->finalize(); }

} // namespace

World &World::get() {
  static World world;
  return world;
}

World::World() {
  timeout_ = std::chrono::duration<double>(timeoutSeconds());
  if (!launchedByMpi())
    return;
  const tf_transport *transport = openPlugin();
  char error[512] = "";
  if (transport->init(&rank_, &size_, error, sizeof error) != 0)
    fail(TF_ERROR_EXECUTION,
         std::string("joining the MPI run failed: ") + error);
  transport_ = transport;
  // Leaving the run is part of ending the process: Open MPI's launcher
  // takes a rank that exits without it for one that failed.
  finalizing = transport;
  std::atexit(finalizeAtExit);
}

void World::sum(double *values, int64_t count) {
  if (!transport_)
    return;
  const std::string what = "summing over the ranks";
  void *request = nullptr;
  char error[512] = "";
  if (transport_->start_sum(values, count, /*f64=*/1, &request, error,
                            sizeof error) != 0)
    abort(what + ": " + error);
  complete(request, what);
}

void World::broadcast(void *data, int64_t bytes, int32_t root) {
  if (!transport_)
    return;
  const std::string what = "broadcasting to the ranks";
  void *request = nullptr;
  char error[512] = "";
  if (transport_->start_broadcast(data, bytes, root, &request, error,
                                  sizeof error) != 0)
    abort(what + ": " + error);
  complete(request, what);
}

void *World::startSum(float *data, int64_t count, const std::string &what) {
  void *request = nullptr;
  char error[512] = "";
  if (transport_->start_sum(data, count, /*f64=*/0, &request, error,
                            sizeof error) != 0)
    abort(what + ": " + error);
  return request;
}

bool World::test(void *request, const std::string &what) {
  char error[512] = "";
  int32_t done = 0;
  if (transport_->test(request, &done, error, sizeof error) != 0)
    abort(what + ": " + error);
  return done != 0;
}

void World::complete(void *request, const std::string &what) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(timeout_);
  for (unsigned spins = 0; !test(request, what); ++spins) {
    // Yield once the others are clearly not about to arrive: a spinning
    // rank on a shared core takes time from the one it waits for.
    if (spins > 1000)
      std::this_thread::yield();
    if ((spins & 255) == 0 && Clock::now() > deadline)
      abort(what + " waited " + std::to_string(std::lround(timeout_.count())) +
            " s for the other ranks: one has stopped or is stuck "
            "(TRANSFUSE_COLLECTIVE_TIMEOUT sets the limit)");
  }
}

void World::abort(const std::string &message, int32_t code) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: rank %d of %d: %s\n", rank_, size_,
               printable(message).c_str());
  std::fflush(stderr);
  if (transport_)
    transport_->abort(code);
  std::_Exit(code);
}

} // namespace transfuse::rt
