# tiledconv - tiled separable convolution on OpenCL devices: a library (libtiledconv, a C API
# in include/tiledconv.h, a Python binding in python/) and a command line on top of it.
#
#   make            build ./tiledconv and build/lib/libtiledconv.{so,a} (installs nothing)
#   make run        install what is missing, build, filter images/TiledConv_Input512x512.bmp
#   make test       install what is missing, build with -Werror, run every test suite
#   make sanitize   the tool, the tests and the library under AddressSanitizer + UBSan
#   make kernel-check   every kernel under oclgrind (make test runs it)
#   make full-sweeps    the sweeps make test samples, at full length (5 minutes, warm caches)
#   make bench      every benchmark scenario in full size on a GPU, into bench-out/ (bench/run;
#                   BENCH_SCENARIOS="kernel peers" for some); make bench-smoke: every scenario
#                   reduced on PoCL, a check that each runs (make test runs it)
#   make fuzz       long runs (FUZZ_LONG_SECONDS each) of the libFuzzer harnesses: the BMP, PNG,
#                   JPEG and PGM/PPM readers, the row-by-row readers of images in strips, the
#                   option parser, the input reader, the stream scanner and the --files-from
#                   reader (clang); make fuzz-build builds them
#   make install PREFIX=/usr/local / make uninstall
#
# Honours CC, CFLAGS, CPPFLAGS, LDFLAGS, PREFIX, DESTDIR. `make test` adds -Werror (WERROR=).

CC      ?= cc
CFLAGS  ?= -O2 -g
WERROR  ?=
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man
PYTHONDIR ?= $(LIBDIR)/python3/dist-packages
PKG_CONFIG ?= pkg-config
# Debian's interpreter: python3-numpy and python3-pytest install for it.
PYTHON  ?= /usr/bin/python3

VERSION := 1.3.0
SOMAJOR := 1

WARN       := -std=c11 -Wall -Wextra -pedantic $(WERROR)
OCL_CFLAGS := $(shell $(PKG_CONFIG) --cflags OpenCL 2>/dev/null)
OCL_LIBS   := $(shell $(PKG_CONFIG) --libs OpenCL 2>/dev/null || echo -lOpenCL)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)
# The codecs' libraries (PNG: libspng, JPEG: TurboJPEG) are linked by libtiledconv, whose file
# layer (include/tiledconv_files.h) reads and writes image files.
CODEC_CFLAGS := $(shell $(PKG_CONFIG) --cflags spng libturbojpeg 2>/dev/null)
CODEC_LIBS   := $(shell $(PKG_CONFIG) --libs spng libturbojpeg 2>/dev/null || echo -lspng -lturbojpeg)
# Reading and writing a JPEG row by row (an image filtered in strips) takes libjpeg's scanline
# API, from the same libjpeg-turbo as TurboJPEG (whose own API has whole images only; Debian:
# libjpeg62-turbo-dev). Where its header is missing, or with JPEGLIB=no, the tool is built
# without it and a JPEG filtered in strips is decoded and encoded whole (counted in the budget).
ifndef JPEGLIB
JPEGLIB := $(shell printf '\043include <stdio.h>\n\043include <jpeglib.h>\n' | \
             $(CC) -E -x c - >/dev/null 2>&1 && echo yes || echo no)
endif
ifeq ($(JPEGLIB),yes)
CODEC_CFLAGS += -DTC_HAVE_JPEGLIB $(shell $(PKG_CONFIG) --cflags libjpeg 2>/dev/null)
CODEC_LIBS   += $(shell $(PKG_CONFIG) --libs libjpeg 2>/dev/null || echo -ljpeg)
endif
# OpenCL 1.2 is what every platform we target speaks (NVIDIA's OpenCL C is 1.2, PoCL more).
# -MMD -MP: each object lists the headers it read, so touching one rebuilds only its users.
ALL_CPPFLAGS := -DCL_TARGET_OPENCL_VERSION=120 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc \
                -Isrc/io $(OCL_CFLAGS) $(CODEC_CFLAGS) $(CPPFLAGS)
ALL_CFLAGS   := $(WARN) $(CFLAGS)
DEPFLAGS     := -MMD -MP
LIBS         := $(OCL_LIBS) -lm -lpthread

# Packages each target needs on Debian (scripts/install-deps.sh installs the missing ones).
DEPS_BUILD := gcc make pkg-config ocl-icd-opencl-dev opencl-headers pocl-opencl-icd \
              libspng-dev libturbojpeg0-dev libjpeg62-turbo-dev
# libjpeg-turbo-progs: djpeg and cjpeg, which tests/test_jpeg.c and tests/e2e-formats.sh compare
# with and make files by.
# python3-dask, python3-distributed: tiledconv.dask's tests (a threaded scheduler, a cluster of
# two worker processes); the binding itself needs neither.
# clang-15: the compiler of Debian's PoCL (LLVM 15), by which tests/cold-builds.sh builds every
# kernel program for CPUs other than the machine's.
DEPS_TEST  := $(DEPS_BUILD) libcmocka-dev oclgrind clang clang-15 libclang-rt-dev python3-numpy \
              python3-pytest parallel libjpeg-turbo-progs python3-dask python3-distributed

# The library: these sources, compiled position-independent with only the API visible.
# Objects live under $(O) so that the sanitizer build (O=build/asan) never mixes with this one.
O   ?= build/obj
BIN ?= tiledconv
LIBOUT ?= build/lib
# The library's sources, by subsystem. The API: the context and its filter calls, tc_params
# turned into jobs, the calls without a device, the gradient's and the scale space's calls.
LIB_SRCS := src/context.c src/params.c src/host_api.c src/gradient.c src/pyramid.c
# Running filters on a device: which kernel runs a job and its geometry, the launchers, the
# device buffers, the job's kernels, the images beside buffers and the bilinear-tap trick, the
# kernels' programs (built, and kept on disk between processes), the devices.
LIB_SRCS += src/variants.c src/split.c src/tiled_geometry.c src/launch.c src/host_run.c src/buffers.c src/job_kernels.c \
            src/kernel_args.c src/storage.c src/bilinear.c src/programs.c \
            src/program_cache.c src/device.c src/status.c src/hostmem.c
# Pixels in, pixels out: the older layouts, the channel-last layouts and the pipeline that
# overlaps one image's transfers with another's kernels, images filtered in bands of rows.
LIB_SRCS += src/pixels.c src/channels.c src/stream.c src/stream_slot.c src/pinned_ring.c \
            src/deferred_figures.c src/copier.c src/bulk_copy.c src/bands.c src/host_blocks.c
# The gradient and the Gaussian scale space on a device, and the scale space's plan.
LIB_SRCS += src/gradient_launch.c src/pyramid_launch.c src/pyramid_plan.c
# A JPEG's block arithmetic on the device: pixels to coefficients on the way out.
LIB_SRCS += src/jpeg_encode.c
# A JPEG's pixels made on the device from its coefficients.
LIB_SRCS += src/jpeg_decode.c
# A JPEG filtered on the device from coefficients to coefficients (the batch's JPEG path).
LIB_SRCS += src/jpeg_filter.c
# The filters themselves (pure host code), planes and ROIs, the CPU reference.
LIB_SRCS += src/filter.c src/image.c src/reference.c
# The study and test settings.
LIB_SRCS += src/tuning.c
# The BMP reader and writer: its headers, its pixels, files read, files written.
BMP_SRCS := src/io/bmp_header.c src/io/bmp_decode.c src/io/bmp_file.c src/io/bmp_write.c
# The library's file layer (include/tiledconv_files.h), first its codecs: every file of src/io
# (the formats behind codec.c's table, the decoders' limits, files written whole, streams,
# images read a row at a time), so that a new format is its own file and the table's entry.
IO_SRCS  := $(sort $(wildcard src/io/*.c))
# Then the file pipeline: the pool of codec workers, the device lanes, the page-locked blocks,
# the waiters that sync and rename, images in strips under a budget, the memory plan; the
# inputs and outputs named, the options of a run and its public call (tc_filter_files).
FILES_SRCS := src/files/batch.c src/files/batch_state.c src/files/batch_pool.c \
              src/files/batch_lanes.c src/files/batch_account.c src/files/pinned_pool.c \
              src/files/job.c src/files/job_filter.c src/files/job_output.c src/files/commit.c \
              src/files/source.c src/files/plan.c src/files/strips.c src/files/outputs.c \
              src/files/sha256.c src/files/inputs.c src/files/name_list.c src/files/options.c \
              src/files/file_hooks.c src/files/compare.c src/files/files_api.c \
              src/files/option_parse.c src/files/option_values.c src/files/option_rules.c \
              src/files/option_table.c src/files/bytes.c src/files/devices.c \
              src/files/image_files.c
# The command line: options, messages and exit codes, and the studies of one image (-t, -e,
# -a all, --class-map, --gradient, --pyramid), on the library.
CLI_SRCS := cli/main.c \
            cli/help.c cli/test_hooks.c cli/study.c cli/study_input.c cli/report.c cli/synth.c \
            cli/verify.c cli/batch_report.c cli/classmap.c cli/detach.c \
            cli/gradient_run.c cli/pyramid_run.c cli/strips_study.c
# The kernels: Common.cl goes before each of TiledConv.cl, Long.cl, Masks.cl, Images.cl,
# Gradient.cl and Pyramid.cl, Samples.cl before Pixels.cl and Channels.cl; JpegEncode.cl and
# JpegDecode.cl stand alone (programs.c).
CL_NAMES := TiledConv Pixels Common Long Masks Images Gradient Pyramid Channels Samples \
            JpegEncode JpegDecode
IO_OBJS  := $(addprefix $(O)/,$(IO_SRCS:.c=.o)) $(addprefix $(O)/,$(FILES_SRCS:.c=.o))
LIB_OBJS := $(addprefix $(O)/,$(LIB_SRCS:.c=.o)) $(patsubst %,$(O)/src/%_cl.o,$(CL_NAMES)) \
            $(IO_OBJS)
CLI_OBJS := $(addprefix $(O)/,$(CLI_SRCS:.c=.o))
STATIC   := $(LIBOUT)/libtiledconv.a
SHARED   := $(LIBOUT)/libtiledconv.so.$(VERSION)
SONAME   := libtiledconv.so.$(SOMAJOR)
LIB_CFLAGS := -fPIC -fvisibility=hidden -DTILEDCONV_BUILDING

TEST_NAMES := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
TEST_BINS  := $(addprefix $(O)/tests/,$(TEST_NAMES))

.PHONY: all lib run test test-build manual manual-check doc-tests unit-tests e2e-tests full-sweeps batch-tests detach-tests cold-builds hardening3-tests formats-tests jpeg-device-tests seeds-tests images-tests \
        gradient-tests pyramid-tests strips-tests strips-large api-test python-tests kernel-check \
        bench bench-smoke \
        sanitize fuzz fuzz-build fuzz-check \
        check-codecs deps-build deps-test check-opencl install uninstall clean

all: $(BIN) lib

lib: $(STATIC) $(SHARED) $(LIBOUT)/libtiledconv.so $(LIBOUT)/$(SONAME)

# A plain `make` installs nothing; without the OpenCL headers it says what to do instead of
# failing inside the compiler.
check-opencl:
	@printf '#include <CL/cl.h>\n' | $(CC) $(OCL_CFLAGS) -E -x c - >/dev/null 2>&1 || { \
	    echo "tiledconv: the OpenCL headers are missing: install ocl-icd-opencl-dev and"; \
	    echo "tiledconv: opencl-headers (and pocl-opencl-icd for a CPU device), or run"; \
	    echo "tiledconv: 'make run', which installs what is missing and builds."; exit 1; }

# Likewise for the codecs' libraries, checked before the codecs that include them are built.
check-codecs:
	@printf '#include <spng.h>\n#include <turbojpeg.h>\n' | \
	    $(CC) $(CODEC_CFLAGS) -E -x c - >/dev/null 2>&1 || { \
	    echo "tiledconv: the PNG and JPEG libraries are missing: install libspng-dev and"; \
	    echo "tiledconv: libturbojpeg0-dev, or run 'make run', which installs what is missing."; \
	    exit 1; }

$(addprefix $(O)/src/io/,codec.o png.o jpeg.o jpeg_trap.o jpeg_coefs.o pnm.o rows.o): | check-codecs

# The tool links the shared library like any other program, and finds it through a path
# relative to its own place: $$ORIGIN/build/lib for ./tiledconv (LIBOUT from BIN's folder).
# `make install` links it again for the installed library's place ($$ORIGIN/../lib).
TOOL_LIBS  = -L$(LIBOUT) -ltiledconv $(CODEC_LIBS) -lm -lpthread
BIN_RPATH := $(shell realpath -m --relative-to=$(dir $(abspath $(BIN))) $(abspath $(LIBOUT)))
$(BIN): $(CLI_OBJS) $(LIBOUT)/$(SONAME) $(LIBOUT)/libtiledconv.so
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) -Wl,-rpath,'$$ORIGIN/$(BIN_RPATH)' \
	    $(TOOL_LIBS)

# The test build of the tool, build/test/tiledconv: the same objects but for cli/test_hooks.c,
# compiled with -DTILEDCONV_TEST_HOOKS, so that TILEDCONV_TEST_CORRUPT (a wrong pixel for -e to
# catch) and TILEDCONV_CLEAN_EXIT (contexts closed before the end) are read. It links a library
# of its own, build/test/lib: the product's objects but for the file layer's that read a hook
# (src/files/file_hooks.h), compiled again with it. The product reads none of them and has no
# code for them; the end-to-end suites that need them run this build (docs/testing.md).
TEST_BIN := build/test/tiledconv
TEST_LIBOUT := build/test/lib
HOOKED_NAMES := batch batch_lanes job_filter file_hooks
HOOKED_OBJS := $(patsubst %,$(O)/test-hooks/%.o,$(HOOKED_NAMES))
$(O)/test-hooks/test_hooks.o: cli/test_hooks.c
	@mkdir -p $(@D)
	$(CC) $(CLI_CPPFLAGS) -DTILEDCONV_TEST_HOOKS $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<
$(O)/test-hooks/%.o: src/files/%.c | check-opencl
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -Isrc/files -DTILEDCONV_TEST_HOOKS $(ALL_CFLAGS) $(FILES_CFLAGS) \
	    $(DEPFLAGS) -c -o $@ $<
$(TEST_LIBOUT)/$(SONAME): $(filter-out $(patsubst %,$(O)/src/files/%.o,$(HOOKED_NAMES)),$(LIB_OBJS)) \
                          $(HOOKED_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(CODEC_LIBS) $(LIBS)
$(TEST_BIN): $(filter-out $(O)/cli/test_hooks.o,$(CLI_OBJS)) $(O)/test-hooks/test_hooks.o \
             $(TEST_LIBOUT)/$(SONAME)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) -Wl,-rpath,'$$ORIGIN/lib' \
	    $(TEST_LIBOUT)/$(SONAME) $(CODEC_LIBS) -lm -lpthread
test-build: $(TEST_BIN)

INSTALL_RPATH := $(shell realpath -m --relative-to=$(BINDIR) $(LIBDIR))
$(O)/install/tiledconv: $(CLI_OBJS) $(LIBOUT)/$(SONAME) $(LIBOUT)/libtiledconv.so FORCE
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) \
	    -Wl,-rpath,'$$ORIGIN/$(INSTALL_RPATH)' $(TOOL_LIBS)

$(STATIC): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(SHARED): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(CODEC_LIBS) $(LIBS)

$(LIBOUT)/$(SONAME) $(LIBOUT)/libtiledconv.so: $(SHARED)
	ln -sf $(notdir $(SHARED)) $@

$(O)/src/%.o: src/%.c | check-opencl
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LIB_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The file layer is compiled position-independent with its names hidden, but for those the
# command line calls beyond the public API (TC_TOOL, src/io/tool_visible.h: its reports read
# the batch's state).
FILES_CFLAGS := -fPIC -fvisibility=hidden -DTILEDCONV_BUILDING
$(O)/src/files/%.o: src/files/%.c | check-opencl
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -Isrc/files $(ALL_CFLAGS) $(FILES_CFLAGS) $(DEPFLAGS) -c -o $@ $<
$(O)/src/io/%.o: src/io/%.c | check-opencl
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(FILES_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The command line sees the library through its headers: include/, and the file layer's
# (src/files, src/io), whose batch state its reports read; no -Isrc, and no OpenCL headers.
CLI_CPPFLAGS := -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc/io -Isrc/files -Icli $(CODEC_CFLAGS) \
                $(CPPFLAGS)
$(O)/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CLI_CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(O)/%.o: %.c | check-opencl
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The kernel sources are embedded in the library, one string per line (a single literal would
# pass the 4095 characters ISO C guarantees), so nothing needs a file beside it at run time.
# Each kernel file becomes src/NAME_cl.c, its string named after the file in lower case
# (TiledConv.cl: tiledconv_cl).
$(O)/src/%_cl.c: src/%.cl scripts/embed-cl.sh
	@mkdir -p $(@D)
	sh scripts/embed-cl.sh $< $$(echo $* | tr A-Z a-z)_cl > $@.tmp && mv $@.tmp $@

$(O)/src/%_cl.o: $(O)/src/%_cl.c
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LIB_CFLAGS) -c -o $@ $<

# The unit suites test the library's and the command line's parts directly, so they link the
# static library with the command line's and the codecs' objects (all but main).
$(O)/tests/%: tests/%.c $(STATIC) $(filter-out $(O)/cli/main.o,$(CLI_OBJS))
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -Isrc/files -Icli $(CMOCKA_CFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ \
	    $< $(filter-out $(O)/cli/main.o,$(CLI_OBJS)) $(STATIC) $(CMOCKA_LIBS) \
	    $(CODEC_LIBS) $(LIBS)

# The JPEG stages' diagnostic (bench/jpeg_stages.c): the library's device JPEG parts, linked
# as the unit suites link them.
build/jpeg_stages: bench/jpeg_stages.c $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(STATIC) $(CODEC_LIBS) $(LIBS)

-include $(shell find build -name '*.d' 2>/dev/null)

deps-build:
	@sh scripts/install-deps.sh $(DEPS_BUILD)

deps-test:
	@sh scripts/install-deps.sh $(DEPS_TEST)

run: deps-build
	$(MAKE) $(BIN)
	./$(BIN) -s images/TiledConv_Input512x512.bmp -e -t -i 10 -sL 3 -sT 3 -tL 2 -tT 2

unit-tests: $(TEST_BINS)
	@sh tests/run-unit.sh $(TEST_BINS)

e2e-tests: $(BIN) $(TEST_BIN)
	@sh tests/hooks.sh ./$(BIN) $(TEST_BIN)
	@sh tests/e2e.sh $(TEST_BIN)

# The sweeps that make test samples, at full length (docs/testing.md): every geometry case and
# every border and length pair of test_kernels, every border and length pair of test_bands,
# every border of the strips' and the batch's border loops (TEST_FULL), and the kill sweep on
# an 8192 x 8192 write at 20 moments (KILL_SIZE, KILL_MOMENTS), with the rest of their suites.
full-sweeps: $(BIN) $(TEST_BIN) $(TEST_BINS)
	@TEST_FULL=1 sh tests/run-unit.sh build/obj/tests/test_kernels build/obj/tests/test_bands
	@KILL_SIZE=8192x8192 KILL_MOMENTS=20 sh tests/e2e.sh $(TEST_BIN)
	@TEST_FULL=1 sh tests/strips.sh ./$(BIN)
	@TEST_FULL=1 sh tests/batch.sh $(TEST_BIN)

# Many images in one run: outputs against single runs, the rules, the device path against the
# host's, --files-from, the progress line, GNU parallel (tests/batch.sh).
batch-tests: $(TEST_BIN)
	@sh tests/batch.sh $(TEST_BIN)

# Every kind of kernel program built from a cold cache with -Werror, stderr empty, and each
# through PoCL's clang for CPUs without AVX-512 (tests/cold-builds.sh).
cold-builds: $(BIN) lib
	@PYTHON=$(PYTHON) sh tests/cold-builds.sh ./$(BIN)

# The third round of hardening (tests/hardening3.sh): strips in a batch, the umask, a failed
# strips write, long names, a FIFO with no writer, a closed stderr.
hardening3-tests: $(BIN)
	@sh tests/hardening3.sh ./$(BIN)

# A device run in a child, its end not waiting for the driver's teardown (tests/detach.sh).
detach-tests: $(TEST_BIN)
	@sh tests/detach.sh $(TEST_BIN)

# PNG, JPEG and PGM/PPM through the tool: round trips, the same picture in every format, JPEG
# against djpeg and cjpeg, pipes, mixed batches (tests/e2e-formats.sh).
formats-tests: $(TEST_BIN)
	@sh tests/e2e-formats.sh $(TEST_BIN)

# The device's JPEG path through the batch (--tune jpeg-device=1) against the CPU path: every
# output file byte for byte, gray and colour, ROIs, samplings, a mixed batch, the lane's
# fallback, --json's jpeg_decode and jpeg_encode (tests/jpeg-device.sh).
jpeg-device-tests: $(TEST_BIN)
	@PYTHON=$(PYTHON) sh tests/jpeg-device.sh $(TEST_BIN)

# What the docs tell a user to run, run as written (tests/doc-commands.sh): every ```sh,
# ```python and ```c block of README.md and docs/, the manual's examples, in a scratch folder
# of the bundled images; the docs' links, and the scripts' execute bits.
doc-tests: $(BIN) lib
	@sh tests/doc-commands.sh ./$(BIN)

# What the seed articles teach (tests/seeds.sh): the picture of the four classes.
seeds-tests: $(BIN)
	@sh tests/seeds.sh ./$(BIN)

# Image objects beside buffers and the bilinear-tap trick (tests/images.sh): --storage image
# against the buffer path, -a bilinear within its tolerance, the records, the refusals.
images-tests: $(TEST_BIN)
	@sh tests/images.sh $(TEST_BIN)

# --pyramid end to end: the files, level (0, 0) against the plain filter, -e, -t, the records,
# the refusals, several inputs (tests/pyramid.sh).
pyramid-tests: $(TEST_BIN)
	@sh tests/pyramid.sh $(TEST_BIN)

# --gradient end to end (tests/gradient.sh): the planes against the plain filters', the
# comparison, the records, the refusals.
gradient-tests: $(TEST_BIN)
	@sh tests/gradient.sh $(TEST_BIN)

# Images filtered in strips under --max-memory (tests/strips.sh): every format, gray and colour,
# ROIs, borders, algorithms, -e, --raw, a batch, against the whole run byte for byte; the peak
# memory under the budget; the refusals. strips-large: the 16384 x 16384 PNG of zeros, whole and
# in strips under --max-memory 1G, gray and colour (bench/strips-large.sh; minutes on PoCL).
strips-tests: $(BIN)
	@sh tests/strips.sh ./$(BIN)

strips-large: $(BIN)
	@sh bench/strips-large.sh build/strips-large ./$(BIN)

# The C API as a user meets it: installed into a scratch prefix, a program built only with
# the installed header and `pkg-config tiledconv`.
api-test: lib
	@sh tests/api/run.sh

# The binding's tests (tests/python compares with ./tiledconv's output, and installs the
# package with pip into fresh environments), then the examples of python/README.md and of the
# package's docstrings, run as doctests.
python-tests: lib $(BIN)
	PYTHONPATH=python TILEDCONV_LIBRARY=$(CURDIR)/$(LIBOUT)/$(SONAME) $(PYTHON) -m pytest -q \
	    -p no:cacheprovider tests/python
	PYTHONPATH=python TILEDCONV_LIBRARY=$(CURDIR)/$(LIBOUT)/$(SONAME) $(PYTHON) -m pytest -q \
	    -p no:cacheprovider --doctest-modules --doctest-glob='README.md' python/tiledconv \
	    python/README.md

# The benchmark suite (bench/README.md): `make bench` runs the scenarios in full size on the
# first GPU (minutes each; docs/benchmarks.md gives each one's command and figures), with the
# interpreter on the PATH (python3: the one with the peers' cv2, CuPy and torch);
# `make bench-smoke` runs every one reduced on PoCL and checks its records (about a minute and
# a half on 2 cores), and the tables' arithmetic (tests/bench).
BENCH_SCENARIOS ?= all
bench: all test-build
	@for s in $(BENCH_SCENARIOS); do bench/run "$$s" || exit 1; done

bench-smoke: all test-build
	$(PYTHON) -m pytest -q -p no:cacheprovider tests/bench
	@PYTHON=$(PYTHON) bench/run --smoke all

# The JPEG kernels' suites run them under oclgrind (their path through the tool, --tune
# jpeg-device=1, is jpeg-device-tests').
JPEG_ENCODE_SUITE := $(O)/tests/test_jpeg_encode_device
kernel-check: $(BIN) $(JPEG_ENCODE_SUITE) $(O)/tests/test_jpeg_device
	@sh scripts/install-deps.sh oclgrind
	@PYTHON=$(PYTHON) sh tests/kernel-check.sh ./$(BIN)
	@sh tests/gradient-kernel-check.sh ./$(BIN)
	@sh tests/jpeg-encode-kernel-check.sh $(JPEG_ENCODE_SUITE)
	@sh tests/jpeg-kernel-check.sh $(O)/tests/test_jpeg_device

# The suites build their kernel programs with TEST_CL_OPTIONS (TILEDCONV_CL_OPTIONS): without
# the optimiser PoCL builds a program in a tenth of the time or less (a 47-tap long kernel 0.7 s
# against 13), which was most of a run on a cold cache; the kernels' source and semantics are
# the same, and seeds-tests and detach-tests (the article's example, its class map, a device run
# in a child) and kernel-check build them as a user's run does (docs/testing.md).
TEST_CL_OPTIONS ?= -cl-opt-disable -Werror
# kernel-check (oclgrind: one process at a time, one core for about five minutes), then
# cold-builds and bench-smoke (each a process at a time, mostly PoCL's compiler on one core) run
# beside the other suites, which mostly keep one core busy (a process at a time), their report
# after theirs (build/background.log); the fuzzers (one core each for a fixed time) beside the
# sanitized suites. Everything the background needs (the product binary, its library, the test
# build, the suite kernel-check runs) is built first, so that nothing is built twice at once.
# Each run of make test sees what a fresh machine sees: the suites run with a new, empty home
# folder (build/test-home), so that nothing a machine keeps between runs can help them: PoCL's
# kernel cache and the library's program cache (every program is built again: the compiler's
# warnings show, and fail the run with -Werror), pip's cache, ~/.local, GNU parallel's folder.
TEST_HOME := $(CURDIR)/build/test-home
TEST_ENV  := HOME=$(TEST_HOME) XDG_CACHE_HOME=$(TEST_HOME)/.cache \
             POCL_CACHE_DIR=$(TEST_HOME)/.cache/pocl \
             TILEDCONV_PROGRAM_CACHE=$(TEST_HOME)/.cache/tiledconv
test: deps-test
	@sh scripts/install-deps.sh oclgrind
	$(MAKE) WERROR=-Werror all test-build $(JPEG_ENCODE_SUITE) $(O)/tests/test_jpeg_device
	@rm -rf $(TEST_HOME); mkdir -p $(TEST_HOME)/.cache/pocl $(TEST_HOME)/.cache/tiledconv; \
	    echo "tiledconv: the suites run with HOME=$(TEST_HOME), every cache in it empty"
	@mkdir -p build; rm -f build/background.log build/background.status; \
	    ( { $(TEST_ENV) $(MAKE) -s kernel-check; checked=$$?; \
	        $(TEST_ENV) TILEDCONV_CL_OPTIONS='$(TEST_CL_OPTIONS)' $(MAKE) WERROR=-Werror \
	        cold-builds bench-smoke; built=$$?; [ $$checked -eq 0 ] && [ $$built -eq 0 ]; } \
	      > build/background.log 2>&1; echo $$? > build/background.status ) & \
	    $(TEST_ENV) TILEDCONV_CL_OPTIONS='$(TEST_CL_OPTIONS)' $(MAKE) WERROR=-Werror all \
	    unit-tests manual-check doc-tests e2e-tests batch-tests formats-tests jpeg-device-tests \
	    images-tests gradient-tests pyramid-tests strips-tests hardening3-tests api-test \
	    python-tests; suites=$$?; wait; \
	    cat build/background.log; [ $$suites -eq 0 ] && [ "$$(cat build/background.status)" = 0 ]
	$(TEST_ENV) TILEDCONV_CL_OPTIONS=-Werror $(MAKE) seeds-tests detach-tests
	$(MAKE) build/fuzz/fuzz_bmp build/fuzz/fuzz_options $(FORMAT_FUZZERS) $(READER_FUZZERS)
	@$(MAKE) fuzz-check & fuzzing=$$!; \
	    $(TEST_ENV) TILEDCONV_CL_OPTIONS='$(TEST_CL_OPTIONS)' $(MAKE) sanitize; sanitized=$$?; \
	    wait $$fuzzing; fuzzed=$$?; [ $$sanitized -eq 0 ] && [ $$fuzzed -eq 0 ]

# The BMP reader and the option parser under libFuzzer for FUZZ_SECONDS each, seeded with the
# BMP Suite and with command lines; then the PNG, JPEG and PGM/PPM readers for
# FORMAT_FUZZ_SECONDS each, seeded with tests/data/formats/. Any sanitizer report fails.
FUZZ_SECONDS ?= 15
FORMAT_FUZZ_SECONDS ?= 12
FORMAT_FUZZERS := build/fuzz/fuzz_png build/fuzz/fuzz_jpeg build/fuzz/fuzz_pnm \
                  build/fuzz/fuzz_rows
# Then the input reader, the stream scanner and the --files-from reader for READER_FUZZ_SECONDS
# each, seeded with the fixtures and tests/fuzz-seeds/.
READER_FUZZ_SECONDS ?= 10
READER_FUZZERS := build/fuzz/fuzz_source build/fuzz/fuzz_stream build/fuzz/fuzz_list
fuzz-check: build/fuzz/fuzz_bmp build/fuzz/fuzz_options $(FORMAT_FUZZERS) $(READER_FUZZERS)
	@sh tests/fuzz-check.sh build/fuzz/fuzz_bmp $(FUZZ_SECONDS)
	@sh tests/fuzz-check.sh build/fuzz/fuzz_options $(FUZZ_SECONDS)
	@sh tests/fuzz-formats.sh $(FORMAT_FUZZ_SECONDS) $(FORMAT_FUZZERS)
	@sh tests/fuzz-readers.sh $(READER_FUZZ_SECONDS) $(READER_FUZZERS)

# Long runs: every harness for FUZZ_LONG_SECONDS (default 300, 40 minutes for the eight), their
# corpora kept in build/fuzz/corpus/NAME so that each run starts where the last one stopped.
# `make fuzz-build` only builds them.
FUZZ_LONG_SECONDS ?= 300
FUZZ_CORPUS_DIR ?= build/fuzz/corpus
fuzz: fuzz-build
	@mkdir -p $(FUZZ_CORPUS_DIR)
	@FUZZ_CORPUS_DIR=$(FUZZ_CORPUS_DIR) sh tests/fuzz-check.sh build/fuzz/fuzz_bmp $(FUZZ_LONG_SECONDS)
	@FUZZ_CORPUS_DIR=$(FUZZ_CORPUS_DIR) sh tests/fuzz-check.sh build/fuzz/fuzz_options \
	    $(FUZZ_LONG_SECONDS)
	@FUZZ_CORPUS_DIR=$(FUZZ_CORPUS_DIR) sh tests/fuzz-formats.sh $(FUZZ_LONG_SECONDS) \
	    $(FORMAT_FUZZERS)
	@FUZZ_CORPUS_DIR=$(FUZZ_CORPUS_DIR) sh tests/fuzz-readers.sh $(FUZZ_LONG_SECONDS) \
	    $(READER_FUZZERS)

# AddressSanitizer + UBSan build of the tool, the tests and the shared library under
# build/asan; runs the suites that need no OpenCL device work, the end-to-end error cases,
# and the C API and Python tests' library calls under LeakSanitizer.
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
sanitize: deps-test
	$(MAKE) O=build/asan BIN=build/asan/tiledconv LIBOUT=build/asan/lib WERROR=-Werror \
	    CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" CPPFLAGS="$(CPPFLAGS) -DTILEDCONV_TEST_HOOKS" \
	    build/asan/tiledconv lib $(addprefix build/asan/tests/,$(TEST_NAMES))
	@sh tests/run-sanitized.sh build/asan

# Both harnesses stop at the first report of any sanitizer (-fno-sanitize-recover=all).
FUZZ_FLAGS := -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# The BMP reader and what it uses (not the other codecs, which need their libraries).
FUZZ_BMP_SRCS := $(BMP_SRCS) src/io/atomic_file.c src/io/text.c src/io/io_limits.c \
                 src/io/signals.c
fuzz-build: build/fuzz/fuzz_bmp build/fuzz/fuzz_options $(FORMAT_FUZZERS) $(READER_FUZZERS)
build/fuzz/fuzz_bmp: tests/fuzz_bmp.c $(FUZZ_BMP_SRCS) $(wildcard src/io/*.h)
	@mkdir -p $(@D)
	clang $(FUZZ_FLAGS) -D_POSIX_C_SOURCE=200809L -Isrc/io -o $@ tests/fuzz_bmp.c $(FUZZ_BMP_SRCS)

# The codec layer whole, for the harnesses below.
FUZZ_CODEC_SRCS := $(IO_SRCS)

# The parser and what it calls are instrumented (the codec layer for the output formats'
# names); the rest of the library (the algorithm and border names) comes from the static
# library, uninstrumented.
FUZZ_OPTIONS_SRCS := tests/fuzz_options.c src/files/option_parse.c src/files/option_values.c \
                     src/files/option_rules.c src/files/option_table.c src/files/bytes.c \
                     src/files/options.c src/filter.c \
                     $(FUZZ_CODEC_SRCS)
build/fuzz/fuzz_options: $(FUZZ_OPTIONS_SRCS) src/files/option_parse.h src/filter.h $(STATIC) \
                         $(wildcard src/io/*.h) | check-codecs
	@mkdir -p $(@D)
	clang $(FUZZ_FLAGS) -DCL_TARGET_OPENCL_VERSION=120 -D_POSIX_C_SOURCE=200809L -Iinclude \
	    -Isrc -Isrc/io -Isrc/files -Icli $(OCL_CFLAGS) $(CODEC_CFLAGS) -o $@ $(FUZZ_OPTIONS_SRCS) \
	    $(STATIC) $(CODEC_LIBS) $(LIBS)

# The row-by-row readers of images in strips, every format, against the whole-image decoders
# (tests/fuzz_rows.c).
build/fuzz/fuzz_rows: tests/fuzz_rows.c $(FUZZ_CODEC_SRCS) $(wildcard src/io/*.h) | check-codecs
	@mkdir -p $(@D)
	clang -std=c11 -g -O1 -D_POSIX_C_SOURCE=200809L \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -Isrc/io $(CODEC_CFLAGS) -o $@ \
	    tests/fuzz_rows.c $(FUZZ_CODEC_SRCS) $(CODEC_LIBS)

# One harness per format (tests/fuzz_codec.c), each with the codec layer linked whole; UBSan
# reports abort (-fno-sanitize-recover=all) so that the fuzz check cannot pass over them.
build/fuzz/fuzz_%: tests/fuzz_codec.c $(FUZZ_CODEC_SRCS) $(wildcard src/io/*.h) | check-codecs
	@mkdir -p $(@D)
	clang -std=c11 -g -O1 -D_POSIX_C_SOURCE=200809L \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -DFUZZ_$(shell echo $* | tr a-z A-Z) \
	    -Isrc/io $(CODEC_CFLAGS) -o $@ tests/fuzz_codec.c \
	    $(FUZZ_CODEC_SRCS) $(CODEC_LIBS)

# The readers no format harness reaches: the tool's input reader (src/files/source.c: files, standard
# input, FIFOs, devices, files that shrink before they are decoded), the stream scanner
# (src/io/stream_bounds.c) and the --files-from list reader (src/files/name_list.c). Like the codec
# harnesses, with CRCs not checked.
READER_FUZZERS := build/fuzz/fuzz_source build/fuzz/fuzz_stream build/fuzz/fuzz_list
FUZZ_READER_FLAGS := -std=c11 -g -O1 -D_POSIX_C_SOURCE=200809L \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -Isrc/io -Isrc/files -Icli
build/fuzz/fuzz_source: tests/fuzz_source.c src/files/source.c src/files/source.h $(FUZZ_CODEC_SRCS) \
                        $(wildcard src/io/*.h) | check-codecs
	@mkdir -p $(@D)
	clang $(FUZZ_READER_FLAGS) $(CODEC_CFLAGS) \
	    -o $@ tests/fuzz_source.c src/files/source.c $(FUZZ_CODEC_SRCS) $(CODEC_LIBS) -lpthread
build/fuzz/fuzz_stream: tests/fuzz_stream.c $(FUZZ_CODEC_SRCS) $(wildcard src/io/*.h) | check-codecs
	@mkdir -p $(@D)
	clang $(FUZZ_READER_FLAGS) $(CODEC_CFLAGS) -o $@ tests/fuzz_stream.c $(FUZZ_CODEC_SRCS) \
	    $(CODEC_LIBS)
build/fuzz/fuzz_list: tests/fuzz_list.c src/files/name_list.c src/files/name_list.h
	@mkdir -p $(@D)
	clang $(FUZZ_READER_FLAGS) -o $@ tests/fuzz_list.c src/files/name_list.c

# The manual, docs/manual.md and the man page tiledconv.1, made by scripts/manual.c from the
# option table (src/files/option_table.c) and cli/manual_source.md, so that the options the tool
# has, the -h text and the manual cannot drift apart. `make manual` writes both files;
# `make manual-check` (part of `make test`, tests/manual.sh) fails when the committed ones
# differ from what the table makes.
MANUAL_GEN := $(O)/scripts/manual
$(MANUAL_GEN): scripts/manual.c $(O)/src/files/option_table.o
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -Isrc/files -Icli $(ALL_CFLAGS) $(LDFLAGS) -o $@ scripts/manual.c $(O)/src/files/option_table.o

manual: $(MANUAL_GEN)
	$(MANUAL_GEN) cli/manual_source.md $(VERSION) docs/manual.md tiledconv.1

manual-check: $(MANUAL_GEN)
	@sh tests/manual.sh $(MANUAL_GEN) $(VERSION)

# The pkg-config file, with this install's prefix: made on every install (FORCE), since the
# prefix is a make variable that no file's date records (a second `make api-test` installed
# into a new scratch prefix a .pc that named the first one's).
$(LIBOUT)/tiledconv.pc: tiledconv.pc.in Makefile FORCE
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@OCL_LIBS@|$(OCL_LIBS) $(CODEC_LIBS) -lpthread|' tiledconv.pc.in > $@

FORCE:

install: $(O)/install/tiledconv lib $(LIBOUT)/tiledconv.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PYTHONDIR)/tiledconv
	install -m 755 $(O)/install/tiledconv $(DESTDIR)$(BINDIR)/tiledconv
	install -m 644 tiledconv.1 $(DESTDIR)$(MANDIR)/man1/tiledconv.1
	install -m 644 include/tiledconv.h $(DESTDIR)$(INCLUDEDIR)/tiledconv.h
	install -m 644 include/tiledconv_files.h $(DESTDIR)$(INCLUDEDIR)/tiledconv_files.h
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/libtiledconv.a
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/$(notdir $(SHARED))
	ln -sf $(notdir $(SHARED)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libtiledconv.so
	install -m 644 $(LIBOUT)/tiledconv.pc $(DESTDIR)$(LIBDIR)/pkgconfig/tiledconv.pc
	install -m 644 python/tiledconv/*.py $(DESTDIR)$(PYTHONDIR)/tiledconv/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tiledconv $(DESTDIR)$(MANDIR)/man1/tiledconv.1 \
	    $(DESTDIR)$(INCLUDEDIR)/tiledconv.h $(DESTDIR)$(INCLUDEDIR)/tiledconv_files.h \
	    $(DESTDIR)$(LIBDIR)/libtiledconv.a \
	    $(DESTDIR)$(LIBDIR)/$(notdir $(SHARED)) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	    $(DESTDIR)$(LIBDIR)/libtiledconv.so $(DESTDIR)$(LIBDIR)/pkgconfig/tiledconv.pc
	rm -rf $(DESTDIR)$(PYTHONDIR)/tiledconv

clean:
	rm -rf build tiledconv TiledConv_Output.bmp
