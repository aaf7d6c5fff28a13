/*===- transfuse.h - The Transfuse runtime's C API ------------------------===*\
|*                                                                            *|
|* Loads a compiled model (a .tfm, see docs/artifact.md), owns its            *|
|* parameters and runs its entry points. The runtime links neither MLIR nor   *|
|* LLVM: a .tfm runs where only this library is installed.                    *|
|*                                                                            *|
|* Conventions:                                                               *|
|*  - Every function that can fail returns a tf_status; on failure            *|
|*    tf_last_error() gives a one-line message naming what failed (the file,  *|
|*    the tensor, the field). Messages are per thread.                        *|
|*  - Handles are opaque. An artifact is immutable once open and may be       *|
|*    shared between threads; a session is used by one thread at a time.      *|
|*    A session keeps its artifact's code loaded, so the artifact handle may  *|
|*    be closed while sessions made from it are alive.                        *|
|*  - Strings returned by the API live as long as the handle they came from.  *|
|*  - Tensors are dense, row-major, of static shape.                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TRANSFUSE_TRANSFUSE_H
#define TRANSFUSE_TRANSFUSE_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TF_API __attribute__((visibility("default")))
#define TF_NORETURN __attribute__((noreturn))
#else
#define TF_API
#define TF_NORETURN
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The .tfm format version this runtime reads. */
#define TF_FORMAT_VERSION 1
/* The largest tensor rank the API describes. */
#define TF_MAX_RANK 8
/* The largest step count a checkpoint holds: 2^53, which every reader of
   the JSON-lines metrics log holds exactly, and far from overflowing. */
#define TF_MAX_STEP (INT64_C(1) << 53)

typedef enum tf_status {
  TF_OK = 0,
  /* A bad argument: a null handle, an unknown name, an input of the wrong
     dtype or shape, an id out of range. */
  TF_ERROR_INVALID_ARGUMENT = 1,
  /* A file could not be read or written. */
  TF_ERROR_IO = 2,
  /* A file is malformed: truncated, corrupted, or its JSON is invalid. */
  TF_ERROR_FORMAT = 3,
  /* A well-formed file this runtime cannot run: another format version or
     target, a dtype it does not know. */
  TF_ERROR_UNSUPPORTED = 4,
  /* The model's code failed to load or an entry point returned non-zero. */
  TF_ERROR_EXECUTION = 5,
} tf_status;

typedef enum tf_dtype {
  TF_F32 = 0,
  TF_F64 = 1,
  TF_I64 = 2,
  TF_I32 = 3,
  TF_BOOL = 4, /* one byte per element, 0 or 1 */
} tf_dtype;

typedef enum tf_init_kind {
  TF_INIT_ZEROS = 0,
  TF_INIT_ONES = 1,
  TF_INIT_CONSTANT = 2, /* value a */
  TF_INIT_UNIFORM = 3,  /* [a, b) */
  TF_INIT_NORMAL = 4,   /* mean a, standard deviation b */
  TF_INIT_EXTERNAL = 5, /* none: the values come with the model (an
                           imported model's weights file) */
} tf_init_kind;

/* A view of a dense row-major tensor; it never owns `data`. */
typedef struct tf_tensor {
  tf_dtype dtype;
  int32_t rank;
  int64_t shape[TF_MAX_RANK];
  void *data;
} tf_tensor;

/* A tensor with the name it is bound to (an input or an output). */
typedef struct tf_named_tensor {
  const char *name;
  tf_tensor tensor;
} tf_named_tensor;

/* How the manifest declares a parameter, an input or an output. */
typedef struct tf_tensor_info {
  const char *name;
  tf_dtype dtype;
  int32_t rank;
  int64_t shape[TF_MAX_RANK];
  /* Inputs: the largest valid id, or -1 when the manifest gives none. */
  int64_t max_value;
  /* Parameters: the initialisation rule (zeros for inputs and outputs). */
  tf_init_kind init;
  double init_a, init_b;
  /* Labels: 1 and the value the loss skips (its ignore_index), which is
     valid besides [0, max_value]; 0 and 0 otherwise. */
  int32_t has_ignore_value;
  int64_t ignore_value;
} tf_tensor_info;

/* A key and its value, both text: the settings of an optimizer or a
   schedule, the caller's metadata of a checkpoint. */
typedef struct tf_key_value {
  const char *key;
  const char *value;
} tf_key_value;

/* The manifest's training section: how train_step was built. */
typedef struct tf_training_info {
  /* The data inputs and the labels of train_step, by name. */
  int32_t num_inputs;
  const char *const *inputs;
  int32_t num_labels;
  const char *const *labels;
  /* The loss ("cross_entropy", ...). */
  const char *loss;
  /* The optimizer's and the schedule's settings, "kind" first, the values
     as the manifest writes them: for display (the update is compiled into
     train_step). */
  int32_t num_optimizer;
  const tf_key_value *optimizer;
  int32_t num_schedule;
  const tf_key_value *schedule;
  /* The global gradient norm is clipped to this; 0 if it is not clipped. */
  double clip_grad_norm;
  /* The seed the spec asks for (parameters, data order). */
  uint64_t seed;
  /* The label value the loss ignores (-100 unless the manifest says). */
  int64_t ignore_index;
  /* The all-reduces a data-parallel train_step issues per step (compiled
     with --data-parallel); 0 if it runs on one process only. */
  int32_t all_reduce_buckets;
} tf_training_info;

/* What one train_step call did. */
typedef struct tf_train_result {
  int64_t step;    /* the update it took, 1 for the first */
  float loss;      /* the training loss of the batch */
  float grad_norm; /* the global L2 norm of the gradients, before clipping */
  float lr;        /* the learning rate it used */
} tf_train_result;

typedef struct tf_artifact tf_artifact;
typedef struct tf_session tf_session;
typedef struct tf_tensor_file tf_tensor_file;

/*===-- Errors and small helpers ------------------------------------------===*/

/* The message of the last failure on this thread ("" if none). */
TF_API const char *tf_last_error(void);
TF_API const char *tf_status_name(tf_status status);
/* "f32", "f64", "i64", "i32", "bool" (the manifest's spelling). */
TF_API const char *tf_dtype_name(tf_dtype dtype);
/* Bytes per element; 0 for a value outside tf_dtype. */
TF_API size_t tf_dtype_size(tf_dtype dtype);
/* Elements of a tensor (the product of its shape; 1 for rank 0). */
TF_API int64_t tf_tensor_numel(const tf_tensor *tensor);
/* The flat index of the first NaN or infinity of an f32 or f64 tensor; -1
   when it has none, is of another dtype, or is NULL or malformed. For
   checking weights a model is about to use. */
TF_API int64_t tf_tensor_first_nonfinite(const tf_tensor *tensor);
TF_API const char *tf_runtime_version(void);
/* The target this runtime runs ("cpu"). */
TF_API const char *tf_runtime_target(void);

/* Threads used by the kernels (OpenBLAS and the runtime's own loops). The
   runtime does not read OMP_NUM_THREADS or OPENBLAS_NUM_THREADS: until this
   is called the count is the number of CPUs the process may run on.
   `threads` 0 restores that default; negative is an error. */
TF_API tf_status tf_set_num_threads(int32_t threads);
TF_API int32_t tf_get_num_threads(void);

/*===-- Data-parallel runs ------------------------------------------------===*/

/* A process that an MPI launcher started (mpirun -np N) is one of the N
   ranks of a data-parallel run; any other process is rank 0 of 1 and needs
   no MPI. The first of these calls joins the run, opening the runtime's MPI
   transport (libtransfuse_mpi.so, beside the runtime); its failure is
   reported here. A train_step compiled with --data-parallel averages its
   loss and gradients over the ranks, so every rank takes the same step;
   every rank must then make the same calls in the same order. */
TF_API tf_status tf_world(int32_t *rank, int32_t *size);
/* Sums `count` doubles over the ranks, in place (every rank calls it). */
TF_API tf_status tf_world_sum(double *values, int32_t count);
/* This rank's weight in the train steps that follow, in [0, 1]: its share
   of the step's counted labels, so that the averaged loss and gradients are
   those of the whole batch. 1 / size until set. */
TF_API tf_status tf_world_set_weight(double weight);
typedef struct tf_world_stats {
  int64_t all_reduces; /* started so far by this process */
  int64_t bytes;       /* their payload */
  double wait_seconds; /* blocked waiting for them: communication not
                          hidden behind computation */
} tf_world_stats;
TF_API tf_status tf_world_get_stats(tf_world_stats *out);
/* Ends every rank of the run with `code` at once (after an error on this
   one, so the others do not wait for it); exits this process with `code`
   in a single process. */
TF_API TF_NORETURN void tf_world_abort(int32_t code);

/*===-- Artifacts ---------------------------------------------------------===*/

/* Reads and validates a .tfm, loads its code and resolves every entry
   point. On failure *out is set to NULL. */
TF_API tf_status tf_artifact_open(const char *path, tf_artifact **out);
/* NULL is allowed. */
TF_API void tf_artifact_close(tf_artifact *artifact);

/* Manifest fields; "" where the manifest omits an optional one. */
TF_API const char *tf_artifact_model(const tf_artifact *artifact);
TF_API const char *tf_artifact_target(const tf_artifact *artifact);
TF_API const char *tf_artifact_cpu(const tf_artifact *artifact);
TF_API const char *tf_artifact_producer(const tf_artifact *artifact);
/* 16 hex digits identifying the model apart from the target it was
   compiled for: the CPU and the CUDA artifact of one spec have the same,
   and accept each other's checkpoints. */
TF_API const char *tf_artifact_model_fingerprint(const tf_artifact *artifact);
/* The manifest as stored in the file (JSON). */
TF_API const char *tf_artifact_manifest_json(const tf_artifact *artifact);

TF_API int32_t tf_artifact_num_parameters(const tf_artifact *artifact);
TF_API tf_status tf_artifact_parameter(const tf_artifact *artifact,
                                       int32_t index, tf_tensor_info *out);

TF_API int32_t tf_artifact_num_entry_points(const tf_artifact *artifact);
/* NULL for an index out of range. */
TF_API const char *tf_artifact_entry_point_name(const tf_artifact *artifact,
                                                int32_t index);
TF_API tf_status tf_artifact_find_entry_point(const tf_artifact *artifact,
                                              const char *name, int32_t *index);
/* An entry point's parameters (names, in the order it takes them), inputs
   and outputs; -1 for an entry index out of range. */
TF_API int32_t tf_entry_point_num_parameters(const tf_artifact *artifact,
                                             int32_t entry);
TF_API const char *tf_entry_point_parameter(const tf_artifact *artifact,
                                            int32_t entry, int32_t index);
TF_API int32_t tf_entry_point_num_inputs(const tf_artifact *artifact,
                                         int32_t entry);
TF_API tf_status tf_entry_point_input(const tf_artifact *artifact,
                                      int32_t entry, int32_t index,
                                      tf_tensor_info *out);
TF_API int32_t tf_entry_point_num_outputs(const tf_artifact *artifact,
                                          int32_t entry);
TF_API tf_status tf_entry_point_output(const tf_artifact *artifact,
                                       int32_t entry, int32_t index,
                                       tf_tensor_info *out);

/* Training (docs/training.md). An entry point that updates in place (it has
   a "state" list: train_step) takes its parameters, then its state tensors,
   then its inputs, and writes its parameters and state. 1 if it does, 0 if
   not, -1 for an entry index out of range. */
TF_API int32_t tf_entry_point_updates(const tf_artifact *artifact,
                                      int32_t entry);
/* The state tensors an entry point takes (names, in its order); -1 for an
   entry index out of range. */
TF_API int32_t tf_entry_point_num_state(const tf_artifact *artifact,
                                        int32_t entry);
TF_API const char *tf_entry_point_state(const tf_artifact *artifact,
                                        int32_t entry, int32_t index);
/* The optimizer's state tensors (moments, momentum), zero at the start. */
TF_API int32_t tf_artifact_num_state(const tf_artifact *artifact);
TF_API tf_status tf_artifact_state(const tf_artifact *artifact, int32_t index,
                                   tf_tensor_info *out);
/* 1 if the manifest has a training section, else 0. */
TF_API int32_t tf_artifact_has_training(const tf_artifact *artifact);
/* The training section; TF_ERROR_INVALID_ARGUMENT if there is none. The
   strings and arrays live as long as the artifact. */
TF_API tf_status tf_artifact_training(const tf_artifact *artifact,
                                      tf_training_info *out);

/*===-- Sessions ----------------------------------------------------------===*/

/* A session owns one buffer per parameter, zero-filled until initialised
   or loaded, one zero-filled buffer per optimizer state tensor, and the
   count of updates taken (0). */
TF_API tf_status tf_session_create(const tf_artifact *artifact,
                                   tf_session **out);
/* NULL is allowed. */
TF_API void tf_session_destroy(tf_session *session);
/* The artifact the session runs, for manifest queries; it lives as long as
   the session, whether or not the handle it was created from is closed. */
TF_API const tf_artifact *tf_session_artifact(const tf_session *session);

/* Fills every parameter from its manifest init rule, zeroes the optimizer
   state and the step count. Deterministic: the same seed gives
   bit-identical parameters on every run (see Init.cpp). Fails, changing
   nothing, if a parameter's rule is TF_INIT_EXTERNAL: its values must be
   loaded (tf_session_load_parameters). */
TF_API tf_status tf_session_init_parameters(tf_session *session, uint64_t seed);
/* Loads every parameter from a safetensors file holding exactly the
   model's parameters with their dtypes and shapes (a checkpoint's state
   tensors, if any, are skipped). All or nothing: on failure the parameters
   are unchanged. The state and the step count are left as they are. */
TF_API tf_status tf_session_load_parameters(tf_session *session,
                                            const char *path);
/* Writes every parameter to a safetensors file, atomically (a temporary
   beside it, fsync, rename). */
TF_API tf_status tf_session_save_parameters(tf_session *session,
                                            const char *path);
/* A view of the session's buffer of a parameter; writes through it change
   the parameter. */
TF_API tf_status tf_session_parameter(tf_session *session, const char *name,
                                      tf_tensor *out);

/* Runs an entry point. `inputs` binds every input of the entry point by
   name, each exactly once, with the manifest's dtype and shape; integer
   inputs are checked against max_value. The input data is read, never
   written. When `outputs` is not NULL, `num_outputs` must be the entry
   point's output count and outputs[i] receives output i: its name and a
   view of the session's buffer, valid until the entry point runs again or
   the session is destroyed. Running an entry point that updates in place
   (train_step, given its "step") sets the session's step count to that
   step when it succeeds. */
TF_API tf_status tf_session_run(tf_session *session, const char *entry,
                                const tf_named_tensor *inputs,
                                int32_t num_inputs, tf_named_tensor *outputs,
                                int32_t num_outputs);
/* The last result of an output of an entry point, as tf_session_run
   returns it; an entry point that has not run gives zeros. */
TF_API tf_status tf_session_output(tf_session *session, const char *entry,
                                   const char *name, tf_tensor *out);

/*===-- Training ----------------------------------------------------------===*/

/* A view of the session's buffer of an optimizer state tensor; writes
   through it change the state. */
TF_API tf_status tf_session_state(tf_session *session, const char *name,
                                  tf_tensor *out);
/* The updates the session has taken (0 after tf_session_init_parameters,
   the checkpoint's after tf_session_load_checkpoint); -1 for NULL. */
TF_API int64_t tf_session_step(const tf_session *session);
/* Runs train_step on one batch: `inputs` binds the training inputs and
   labels (not "step": the session passes its step count + 1). On success
   the count goes up by one and `out` (may be NULL) receives the step, the
   loss, the gradient norm and the learning rate. If the generated code
   fails, the count is unchanged but the parameters may be part-updated. */
TF_API tf_status tf_session_train_step(tf_session *session,
                                       const tf_named_tensor *inputs,
                                       int32_t num_inputs,
                                       tf_train_result *out);
/* Writes a checkpoint: every parameter and state tensor under its name,
   and as metadata the model, the step count, the manifest and its
   fingerprint, plus `metadata` (keys "format", "model", "checkpoint",
   "step", "manifest" and "manifest_fingerprint" are the runtime's).
   Atomic: a temporary beside it, fsync, rename. */
TF_API tf_status tf_session_save_checkpoint(tf_session *session,
                                            const char *path,
                                            const tf_key_value *metadata,
                                            int32_t num_metadata);
/* Loads a checkpoint read with tf_tensor_file_read (whose metadata then
   gives the caller's entries back). It must hold exactly the parameters
   and state tensors of this model (the error names the first that is
   missing, extra or of another dtype or shape) and come from an artifact
   with the same manifest (the error names the first field that differs).
   All or nothing: on failure the session is unchanged. */
TF_API tf_status tf_session_load_checkpoint(tf_session *session,
                                            const tf_tensor_file *checkpoint);

/*===-- safetensors files (checkpoints, inputs, outputs) ------------------===*/

/* Reads a safetensors file and validates it in full (header, dtypes,
   shapes, offsets). Dtypes: F32, F64, I64, I32, BOOL. */
TF_API tf_status tf_tensor_file_read(const char *path, tf_tensor_file **out);
/* NULL is allowed. */
TF_API void tf_tensor_file_close(tf_tensor_file *file);
TF_API int32_t tf_tensor_file_count(const tf_tensor_file *file);
/* Tensor `index`, in name order. The view is read-only and lives as long
   as the file handle. */
TF_API tf_status tf_tensor_file_get(const tf_tensor_file *file, int32_t index,
                                    tf_named_tensor *out);
TF_API tf_status tf_tensor_file_find(const tf_tensor_file *file,
                                     const char *name, tf_tensor *out);
/* A "__metadata__" value, or NULL. */
TF_API const char *tf_tensor_file_metadata(const tf_tensor_file *file,
                                           const char *key);
/* Writes tensors to a safetensors file atomically (a temporary beside it,
   fsync, rename). Names must be distinct. */
TF_API tf_status tf_tensor_file_write(const char *path,
                                      const tf_named_tensor *tensors,
                                      int32_t count);

/*===-- Kernels the generated code calls (docs/artifact.md) ---------------===*/

/* C[b] = act(op(A[b]) · op(B[b]) + bias) for b in [0, batch); row-major,
   C [m, n]. op(A) = Aᵀ (A stored [k, m]) if trans_a, op(B) = Bᵀ (B stored
   [n, k]) if trans_b. Strides are in elements between batch entries; a
   stride of 0 broadcasts that operand. bias may be null (length n).
   activation: 0 none, 1 relu, 2 gelu (erf), 3 gelu (tanh). */
TF_API void tfrt_matmul_f32(int64_t batch, int64_t m, int64_t n, int64_t k,
                            const float *a, int64_t stride_a, const float *b,
                            int64_t stride_b, int32_t trans_a, int32_t trans_b,
                            const float *bias, int32_t activation, float *c,
                            int64_t stride_c);

/* The allocation functions of generated code (MLIR's generic names): a
   64-byte aligned block of `size` bytes, and its release. Freed blocks are
   kept for reuse by later calls of the same size. */
TF_API void *_mlir_memref_to_llvm_alloc(size_t size);
TF_API void _mlir_memref_to_llvm_free(void *pointer);

/* out = softmax(scale · q kᵀ, masked) v for every (batch, head) pair:
   q [batch, heads, sq, dk], k [batch, heads, sk, dk], v [batch, heads, sk,
   dv], out [batch, heads, sq, dv], each given by its first element and its
   strides in elements over the first three dims (the last is dense). Key j
   is hidden from query i when causal and j > i, or when the byte mask
   (mask_kind 1) is nonzero there; a hidden score becomes mask_fill. A float
   mask (mask_kind 2) is added to the score after that. The mask broadcasts
   to [batch, heads, sq, sk] through its four strides (0 repeats). */
TF_API void
tfrt_attention_f32(int64_t batch, int64_t heads, int64_t sq, int64_t sk,
                   int64_t dk, int64_t dv, const float *q, int64_t q_sb,
                   int64_t q_sh, int64_t q_ss, const float *k, int64_t k_sb,
                   int64_t k_sh, int64_t k_ss, const float *v, int64_t v_sb,
                   int64_t v_sh, int64_t v_ss, const void *mask,
                   int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq,
                   int64_t m_sk, float scale, int32_t causal, float mask_fill,
                   float *out, int64_t o_sb, int64_t o_sh, int64_t o_ss);

/* tfrt_attention_f32 with dropout of the probabilities, and the
   log-sum-exp of every row's scaled, masked scores into lse [batch, heads,
   sq] (dense): what tfrt_attention_backward_f32 needs to recompute the
   probabilities. A row whose every score is -inf has out NaN and lse -inf.
   With P the probabilities, out = (P ∘ M / (1 - dropout)) v, where
   M[b, h, i, j] keeps (1) or drops (0) probability e = ((b · heads + h) ·
   sq + i) · sk + j of the [batch, heads, sq, sk] tensor as Philox-4x32-10
   decides under dropout_key and dropout_stream (docs/artifact.md); lse is
   of the scores, before dropout. dropout is in [0, 1]; 0 computes no mask. */
TF_API void tfrt_attention_stats_f32(
    int64_t batch, int64_t heads, int64_t sq, int64_t sk, int64_t dk,
    int64_t dv, const float *q, int64_t q_sb, int64_t q_sh, int64_t q_ss,
    const float *k, int64_t k_sb, int64_t k_sh, int64_t k_ss, const float *v,
    int64_t v_sb, int64_t v_sh, int64_t v_ss, const void *mask,
    int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq, int64_t m_sk,
    float scale, int32_t causal, float mask_fill, float *out, int64_t o_sb,
    int64_t o_sh, int64_t o_ss, float *lse, float dropout, uint64_t dropout_key,
    int64_t dropout_stream);

/* The gradients of tfrt_attention_f32 with respect to q, k and v, given
   its inputs (the same arguments up to mask_fill), its out and lse from
   tfrt_attention_stats_f32, and grad_out [batch, heads, sq, dv], the
   gradient of out. grad_q [batch, heads, sq, dk], grad_k [batch, heads, sk,
   dk] and grad_v [batch, heads, sk, dv] are overwritten. Every tensor is
   given by its first element and its strides over the first three dims.
   A hidden score is the constant fill, so nothing flows through it to q or
   k; the float mask gets no gradient. A row whose lse is -inf (every score
   -inf, out NaN) gives zero gradients. dropout, dropout_key and
   dropout_stream are the forward's: the same mask is recomputed. */
TF_API void tfrt_attention_backward_f32(
    int64_t batch, int64_t heads, int64_t sq, int64_t sk, int64_t dk,
    int64_t dv, const float *q, int64_t q_sb, int64_t q_sh, int64_t q_ss,
    const float *k, int64_t k_sb, int64_t k_sh, int64_t k_ss, const float *v,
    int64_t v_sb, int64_t v_sh, int64_t v_ss, const void *mask,
    int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq, int64_t m_sk,
    float scale, int32_t causal, float mask_fill, const float *out,
    int64_t o_sb, int64_t o_sh, int64_t o_ss, const float *lse,
    const float *grad_out, int64_t go_sb, int64_t go_sh, int64_t go_ss,
    float *grad_q, int64_t gq_sb, int64_t gq_sh, int64_t gq_ss, float *grad_k,
    int64_t gk_sb, int64_t gk_sh, int64_t gk_ss, float *grad_v, int64_t gv_sb,
    int64_t gv_sh, int64_t gv_ss, float dropout, uint64_t dropout_key,
    int64_t dropout_stream);

/* *loss = the mean over counted rows of the smoothed cross entropy of
   logits [rows, classes], as torch.nn.CrossEntropyLoss(reduction="mean",
   ignore_index, label_smoothing): a row counts unless its label is
   ignore_index; NaN when none counts, and for a counted row whose label is
   not a class. Labels are int64 (index_bits 64) or int32 (32); scratch
   holds `rows` floats. The rows' losses are summed in row order, in
   double, whatever the thread count. */
TF_API void tfrt_cross_entropy_f32(int64_t rows, int64_t classes,
                                   const float *logits, const void *labels,
                                   int32_t index_bits, int64_t ignore_index,
                                   float label_smoothing, float *loss,
                                   float *scratch);

/* grad [rows, classes] = d loss / d logits of tfrt_cross_entropy_f32:
   (softmax - (1 - ls) · onehot(label) - ls / classes) / n in counted rows,
   0 in ignored ones. scratch (`rows` floats) is not used. */
TF_API void tfrt_cross_entropy_grad_f32(int64_t rows, int64_t classes,
                                        const float *logits, const void *labels,
                                        int32_t index_bits,
                                        int64_t ignore_index,
                                        float label_smoothing, float *grad,
                                        float *scratch);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRANSFUSE_TRANSFUSE_H */
