# The README's two commands. Everything comes from Debian's packages; LLVM/
# MLIR and protobuf are pinned to the versions the project is tested with.
LLVM_VERSION := 1:22.1.8-1~deb12u1
PROTOBUF_VERSION := 3.21.12-3+deb12u1
PACKAGES := cmake ninja-build g++ libgtest-dev \
	llvm-22-dev=$(LLVM_VERSION) libmlir-22-dev=$(LLVM_VERSION) \
	mlir-22-tools=$(LLVM_VERSION) llvm-22-tools=$(LLVM_VERSION) \
	liblld-22-dev=$(LLVM_VERSION) zlib1g-dev libzstd-dev \
	protobuf-compiler=$(PROTOBUF_VERSION) libprotobuf-dev=$(PROTOBUF_VERSION) \
	python3-protobuf=$(PROTOBUF_VERSION) python3-torch python3-numpy \
	libopenblas-dev libopenblas0-openmp nlohmann-json3-dev
BUILD := build
JOBS ?= $(shell nproc)

.PHONY: deps build demo test
deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(PACKAGES)

build:
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	ninja -C $(BUILD) -j $(JOBS)

# The main job: compile every seed model and summarise its IR.
demo: deps build
	@for model in models/*.pbtxt; do \
	  echo "== $$model"; \
	  $(BUILD)/bin/transfuse-compile $$model --compile-to=fuse --emit=summary || exit 1; \
	done

test: deps build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
