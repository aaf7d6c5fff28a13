# The README's two commands. Everything comes from Debian's packages; LLVM/
# MLIR and protobuf are pinned to the versions the project is tested with.
# The CUDA target builds against the machine's CUDA 13 toolkit, or, where
# there is none, NVIDIA's pinned PyPI wheels of its parts
# (tools/install-cuda-toolkit.sh); TRANSFUSE_CUDA=OFF leaves it out.
LLVM_VERSION := 1:22.1.8-1~deb12u1
PROTOBUF_VERSION := 3.21.12-3+deb12u1
OPENMPI_VERSION := 4.1.4-3+b1
PACKAGES := cmake ninja-build g++ libgtest-dev \
	llvm-22-dev=$(LLVM_VERSION) libmlir-22-dev=$(LLVM_VERSION) \
	mlir-22-tools=$(LLVM_VERSION) llvm-22-tools=$(LLVM_VERSION) \
	liblld-22-dev=$(LLVM_VERSION) zlib1g-dev libzstd-dev \
	protobuf-compiler=$(PROTOBUF_VERSION) libprotobuf-dev=$(PROTOBUF_VERSION) \
	python3-protobuf=$(PROTOBUF_VERSION) python3-torch python3-numpy \
	libopenblas-dev libopenblas0-openmp nlohmann-json3-dev python3-venv \
	clang-22=$(LLVM_VERSION) libclang-rt-22-dev=$(LLVM_VERSION) \
	valgrind=1:3.19.0-1 libonnx-dev=1.12.0-2+b4 \
	openmpi-bin=$(OPENMPI_VERSION) libopenmpi-dev=$(OPENMPI_VERSION)
BUILD := build
JOBS ?= $(shell nproc)
TRANSFUSE_CUDA ?= ON

.PHONY: deps build demo test gpu-check-prep fuzz fuzz-build sanitize
deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(PACKAGES)
ifneq ($(TRANSFUSE_CUDA),OFF)
	tools/install-cuda-toolkit.sh > /dev/null
endif

build:
ifeq ($(TRANSFUSE_CUDA),OFF)
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DTRANSFUSE_CUDA=OFF
else
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DTRANSFUSE_CUDA=ON -DCUDAToolkit_ROOT=$$(tools/install-cuda-toolkit.sh)
endif
	ninja -C $(BUILD) -j $(JOBS)

# The main job: compile the character-level language model and train it for
# a few minutes on the licence texts every Debian system ships (base-files,
# about 240 KB), printing progress, held-out loss and a sample at the end.
# Kernel threads wait passively: on machines whose CPUs are shared, spinning
# threads take the cores the working ones need.
DEMO_STEPS ?= 300
demo: deps build
	$(BUILD)/bin/transfuse-compile models/char_lm.pbtxt --target=cpu -o $(BUILD)/char_lm.tfm
	cat /usr/share/common-licenses/* > $(BUILD)/licences.txt
	OMP_WAIT_POLICY=passive $(BUILD)/bin/transfuse-train $(BUILD)/char_lm.tfm \
	  --data $(BUILD)/licences.txt --steps $(DEMO_STEPS) --eval-every 100 \
	  --save $(BUILD)/char_lm.ckpt --sample 300 --temperature 0.8
	@echo "Continuing three prompts through the compiled KV-cache entry points:"
	printf 'The \nThis program is free software\nPermission is hereby granted\n' \
	  | OMP_WAIT_POLICY=passive $(BUILD)/bin/transfuse-run $(BUILD)/char_lm.tfm \
	  --weights $(BUILD)/char_lm.ckpt --generate --max-new-tokens 80 \
	  --temperature 0.8 --top-k 40 --sample-seed 1

# The tests, then every fuzz target for TEST_FUZZ_SECONDS (see fuzz below).
test: deps build fuzz-build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	test/fuzz/run-fuzzers.sh $(FUZZ_BUILD) $(TEST_FUZZ_SECONDS) $(FUZZ_JOBS)

# Fuzzing (docs/fuzzing.md): the libFuzzer targets of test/fuzz, built with
# clang, ASan and UBSan in build-fuzz, each run for FUZZ_SECONDS from its
# seeds and regression inputs, FUZZ_JOBS at a time; any finding fails.
FUZZ_BUILD := build-fuzz
FUZZ_SECONDS ?= 60
TEST_FUZZ_SECONDS ?= 40
FUZZ_JOBS ?= $(JOBS)
fuzz-build:
	cmake -G Ninja -S . -B $(FUZZ_BUILD) -DTRANSFUSE_FUZZ=ON \
	  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DCMAKE_C_COMPILER=clang-22
	ninja -C $(FUZZ_BUILD) -j $(JOBS)

fuzz: deps fuzz-build
	test/fuzz/run-fuzzers.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_JOBS)

# The unit tests and the tools' and end-to-end lit tests built with GCC's
# ASan and UBSan in build-asan (docs/fuzzing.md): a full build of its own,
# well over half an hour on two cores, so not part of `make test`. The C++
# is instrumented, not the C of the tests' fake model, whose size a test
# counts on. A test of running out of memory needs malloc to fail rather
# than ASan to stop. Python loads the runtime in some lit tests, so there
# the ASan runtime is preloaded, and leaks (Python's own) are not reported.
# LLVM's BumpPtrAllocator poisons the free part of each slab when compiled
# with ASan, as its inline code is in our objects, but not in Debian's
# uninstrumented libMLIR, which then writes into poisoned memory it
# rightly owns (the storage of uniqued attributes): manual poisoning is off.
SANITIZE_BUILD := build-asan
SANITIZE_ASAN_OPTIONS := allocator_may_return_null=1:allow_user_poisoning=0
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
sanitize: deps
	cmake -G Ninja -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DTRANSFUSE_CUDA=OFF -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
	  -DCMAKE_CXX_FLAGS="$(SANITIZE_FLAGS)"
	ninja -C $(SANITIZE_BUILD) -j $(JOBS)
	ASAN_OPTIONS=$(SANITIZE_ASAN_OPTIONS) ctest --test-dir $(SANITIZE_BUILD) \
	  --output-on-failure -j $(JOBS) -E '^lit$$'
	LD_PRELOAD=$$(gcc -print-file-name=libasan.so) \
	  ASAN_OPTIONS=detect_leaks=0:$(SANITIZE_ASAN_OPTIONS) \
	  /usr/lib/llvm-22/bin/lit -sv \
	  $(SANITIZE_BUILD)/test/Tools $(SANITIZE_BUILD)/test/e2e

# What the GPU check (docs/gpu-check.md, tools/gpu-check.sh) needs on a GPU
# machine without MLIR, made here: the seed models' CUDA artifacts, the CPU
# artifacts' results to compare with, the batches and the sanitizer data,
# and (unless BENCH=0) bench/gpu.py's artifacts for `gpu-check.sh --bench`,
# in build-gpu-check/ (about 25 MiB; carry it along with the checkout).
# transfuse-compile finds the CUDA toolkit through CUDA_HOME.
BENCH ?= 1
gpu-check-prep: build
	CUDA_HOME=$$(tools/install-cuda-toolkit.sh) /usr/bin/python3 \
	  test/python/gpu_check_prep.py --build $(BUILD) --out build-gpu-check \
	  $(if $(filter 1,$(BENCH)),--bench)
