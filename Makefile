# tiledconv - tiled separable convolution of BMP images with OpenCL.
#
#   make            build ./tiledconv
#   make run        install what is missing, build, filter images/TiledConv_Input512x512.bmp
#   make test       install what is missing, build with -Werror, run every test suite
#   make sanitize   the tool and the tests under AddressSanitizer + UBSan (make test runs it)
#   make kernel-check   every kernel under oclgrind (make test runs it)
#   make fuzz       the libFuzzer harness for the BMP reader (clang)
#   make install PREFIX=/usr/local / make uninstall
#
# Honours CC, CFLAGS, CPPFLAGS, LDFLAGS, PREFIX, DESTDIR. WERROR= turns warnings back into warnings.

CC      ?= cc
CFLAGS  ?= -O2 -g
WERROR  ?= -Werror
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
PKG_CONFIG ?= pkg-config

WARN      := -std=c11 -Wall -Wextra -pedantic $(WERROR)
OCL_CFLAGS := $(shell $(PKG_CONFIG) --cflags OpenCL 2>/dev/null)
OCL_LIBS   := $(shell $(PKG_CONFIG) --libs OpenCL 2>/dev/null || echo -lOpenCL)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)
# OpenCL 1.2 is what every platform we target speaks (NVIDIA's OpenCL C is 1.2, PoCL more).
ALL_CPPFLAGS := -DCL_TARGET_OPENCL_VERSION=120 -D_POSIX_C_SOURCE=200809L $(OCL_CFLAGS) $(CPPFLAGS)
ALL_CFLAGS   := $(WARN) $(CFLAGS)
LIBS         := $(OCL_LIBS) -lm

# Packages each target needs on Debian (scripts/install-deps.sh installs the missing ones).
DEPS_BUILD := gcc make pkg-config ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
DEPS_TEST  := $(DEPS_BUILD) libcmocka-dev oclgrind clang libclang-rt-dev

# Everything but main.c goes into a static library that the tests link too. Objects live under
# $(O) so that the sanitizer build (O=build/asan) never mixes with the normal one.
O   ?= build/obj
BIN ?= tiledconv
LIB_SRCS := atomic_file.c bmp.c ocl_util.c reference.c filter.c convolve.c cli.c report.c synth.c \
            outfile.c filters.c
LIB_OBJS := $(addprefix $(O)/,$(LIB_SRCS:.c=.o)) $(O)/TiledConv_cl.o
LIB      := $(O)/libtiledconv.a
HEADERS  := $(wildcard *.h) tests/test_util.h

TEST_NAMES := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
TEST_BINS  := $(addprefix $(O)/tests/,$(TEST_NAMES))

.PHONY: all run test unit-tests e2e-tests kernel-check sanitize fuzz fuzz-check deps-build \
        deps-test \
        install uninstall clean

all: $(BIN)

$(BIN): $(O)/main.o $(LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(O)/main.o $(LIB) $(LIBS)

$(LIB): $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(O)/%.o: %.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

# The kernel source is embedded in the binary, one string per line (a single literal would pass
# the 4095 characters ISO C guarantees), so an installed tiledconv needs no file beside it.
$(O)/TiledConv_cl.c: TiledConv.cl scripts/embed-cl.sh
	@mkdir -p $(@D)
	sh scripts/embed-cl.sh TiledConv.cl > $@.tmp && mv $@.tmp $@

$(O)/TiledConv_cl.o: $(O)/TiledConv_cl.c
	$(CC) $(ALL_CPPFLAGS) -I. $(ALL_CFLAGS) -c -o $@ $<

$(O)/tests/%: tests/%.c $(HEADERS) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(CMOCKA_CFLAGS) -I. $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< \
	    $(LIB) $(CMOCKA_LIBS) $(LIBS)

deps-build:
	@sh scripts/install-deps.sh $(DEPS_BUILD)

deps-test:
	@sh scripts/install-deps.sh $(DEPS_TEST)

run: deps-build
	$(MAKE) $(BIN)
	./$(BIN) -s images/TiledConv_Input512x512.bmp -e -t -i 10 -sL 3 -sT 3 -tL 2 -tT 2

unit-tests: $(TEST_BINS)
	@sh tests/run-unit.sh $(TEST_BINS)

e2e-tests: $(BIN)
	@sh tests/e2e.sh ./$(BIN)

kernel-check: $(BIN)
	@sh scripts/install-deps.sh oclgrind
	@sh tests/kernel-check.sh ./$(BIN)

test: deps-test
	$(MAKE) WERROR=-Werror unit-tests e2e-tests
	$(MAKE) kernel-check
	$(MAKE) sanitize
	$(MAKE) fuzz-check

# The BMP reader under libFuzzer for FUZZ_SECONDS, seeded with the BMP Suite.
FUZZ_SECONDS ?= 60
fuzz-check: build/fuzz/fuzz_bmp
	@sh tests/fuzz-check.sh build/fuzz/fuzz_bmp $(FUZZ_SECONDS)

# AddressSanitizer + UBSan build of the tool and the tests under build/asan; runs the suites
# that need no OpenCL device work (BMP, command line) plus the end-to-end error cases.
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
sanitize: deps-test
	$(MAKE) O=build/asan BIN=build/asan/tiledconv CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" \
	    build/asan/tiledconv $(addprefix build/asan/tests/,$(TEST_NAMES))
	@sh tests/run-sanitized.sh build/asan

fuzz: build/fuzz/fuzz_bmp
build/fuzz/fuzz_bmp: tests/fuzz_bmp.c bmp.c bmp.h atomic_file.c atomic_file.h
	@mkdir -p $(@D)
	clang -std=c11 -g -O1 -D_POSIX_C_SOURCE=200809L -fsanitize=fuzzer,address,undefined \
	    -I. -o $@ tests/fuzz_bmp.c bmp.c atomic_file.c

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/tiledconv
	install -m 644 tiledconv.1 $(DESTDIR)$(MANDIR)/man1/tiledconv.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tiledconv $(DESTDIR)$(MANDIR)/man1/tiledconv.1

clean:
	rm -rf build tiledconv TiledConv_Output.bmp
