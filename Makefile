# The README's two commands. Everything comes from Debian's packages; LLVM/
# MLIR and protobuf are pinned to the versions the project is tested with.
# The CUDA target builds against the machine's CUDA 13 toolkit, or, where
# there is none, NVIDIA's pinned PyPI wheels of its parts
# (tools/install-cuda-toolkit.sh); TRANSFUSE_CUDA=OFF leaves it out.
LLVM_VERSION := 1:22.1.8-1~deb12u1
PROTOBUF_VERSION := 3.21.12-3+deb12u1
PACKAGES := cmake ninja-build g++ libgtest-dev \
	llvm-22-dev=$(LLVM_VERSION) libmlir-22-dev=$(LLVM_VERSION) \
	mlir-22-tools=$(LLVM_VERSION) llvm-22-tools=$(LLVM_VERSION) \
	liblld-22-dev=$(LLVM_VERSION) zlib1g-dev libzstd-dev \
	protobuf-compiler=$(PROTOBUF_VERSION) libprotobuf-dev=$(PROTOBUF_VERSION) \
	python3-protobuf=$(PROTOBUF_VERSION) python3-torch python3-numpy \
	libopenblas-dev libopenblas0-openmp nlohmann-json3-dev python3-venv
BUILD := build
JOBS ?= $(shell nproc)
TRANSFUSE_CUDA ?= ON

.PHONY: deps build demo test gpu-check-prep
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

test: deps build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# What the GPU check (docs/gpu-check.md, tools/gpu-check.sh) needs on a GPU
# machine without MLIR, made here: the seed models' CUDA artifacts, the CPU
# artifacts' results to compare with, the batches and the sanitizer data,
# in build-gpu-check/ (under 40 MiB; carry it along with the checkout).
# transfuse-compile finds the CUDA toolkit through CUDA_HOME.
gpu-check-prep: build
	CUDA_HOME=$$(tools/install-cuda-toolkit.sh) /usr/bin/python3 \
	  test/python/gpu_check_prep.py --build $(BUILD) --out build-gpu-check
