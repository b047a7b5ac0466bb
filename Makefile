# clustermap -- top-level build.  See README.md and docs/.
#
#   make                 build the library, the command, the profiler, the plugin
#   make check-quick     while working: the unit tests and the shell tests
#                        that need no virtual cluster, two at a time (a few
#                        minutes)
#   make check           unit tests (normal + ASan/UBSan build) and shell tests,
#                        then the tests that depend on Slurm and Open MPI on
#                        the newer stacks (make check-stacks)
#   make deps            install the Debian 12 packages the project needs
#   make demo            run the end-to-end demo
#   make bench           run the benchmarks under bench/
#   make bench-large     the engine at 65,536 to 1,048,576 ranks
#   make bench-controller  slurmctld's load of placed sruns at 10,000 nodes (root)
#   make bench-sim       simulated run time under each placement (SimGrid)
#   make bench-sim-gpu   the same on the GPU platforms alone, every app (SimGrid)
#   make bench-sim-css   CSS schedules against MPI_Alltoallv (SimGrid)
#   make install         PREFIX=/usr/local DESTDIR=
#   make deb             Debian packages into build/deb/ (debian/)
#
# BUILD selects the output directory (default build/); SAN=1 adds
# -fsanitize=address,undefined.  Sources are found by directory, so adding a
# module means adding a file, not editing this Makefile.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
LIBEXECDIR ?= $(PREFIX)/libexec
INCDIR  ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
SLURM_PLUGINDIR ?= $(LIBDIR)/slurm
DESTDIR ?=
BUILD   ?= build
SAN     ?= 0

CC      ?= cc
MPICC   ?= mpicc
PKG     ?= pkg-config

WARN    := -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter
OPT     ?= -O2 -g
BASEFLAGS := $(WARN) $(OPT) -fPIC -D_GNU_SOURCE -fvisibility=default
ifeq ($(SAN),1)
BASEFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SANLD   := -fsanitize=address,undefined
endif
# Every link takes LDFLAGS (dpkg-buildflags' hardening, debian/rules).
LDFLAGS_ALL = $(SANLD) $(LDFLAGS)

# Dependencies: pkg-config where a .pc exists, plain flags otherwise.
HWLOC_CFLAGS  := $(shell $(PKG) --cflags hwloc 2>/dev/null)
HWLOC_LIBS    := $(shell $(PKG) --libs hwloc 2>/dev/null || echo -lhwloc)
JSONC_CFLAGS  := $(shell $(PKG) --cflags json-c 2>/dev/null)
JSONC_LIBS    := $(shell $(PKG) --libs json-c 2>/dev/null || echo -ljson-c)
SCOTCH_CFLAGS := -I/usr/include/scotch
SCOTCH_LIBS   := -lscotch -lscotcherr -lz -lpthread
LAPACK_CFLAGS := $(shell $(PKG) --cflags lapacke 2>/dev/null)
LAPACK_LIBS   := -llapacke -lopenblas
CMOCKA_LIBS   := $(shell $(PKG) --libs cmocka 2>/dev/null || echo -lcmocka)
# bind.c dlopen()s hwloc by the soname it was compiled against.
HWLOC_SONAME  := $(shell objdump -p "$$($(CC) -print-file-name=libhwloc.so)" 2>/dev/null | \
                   awk '$$1 == "SONAME" {print $$2}')
SLURM_CFLAGS  := -I/usr/include/slurm
# The slurm.conf libslurm reads when SLURM_CONF is unset: Slurm's build
# compiles "$(sysconfdir)/slurm.conf" into it (default_slurm_config_file,
# src/common/Makefile.am); read from the libslurm built against, else
# Debian's (src/launch/cmp_slurm_conf.h).
SLURM_CONF_DEFAULT := $(shell strings -a "$$($(CC) -print-file-name=libslurm.so)" 2>/dev/null | \
                        grep -x '/.*/slurm\.conf' | grep -v '^/run/slurm/conf/' | head -n 1)
# cairo draws the pictures of `clustermap render` (the command only).
CAIRO_CFLAGS  := $(shell $(PKG) --cflags cairo 2>/dev/null)
CAIRO_LIBS    := $(shell $(PKG) --libs cairo 2>/dev/null || echo -lcairo)

# One folder per component (docs/design.md, "Components"); each is a
# static library with its headers in its folder.
INCS       := -Isrc/core -Isrc/util -Isrc/trace -Isrc/profiles -Isrc/store -Isrc/launch
CFLAGS_ALL := $(BASEFLAGS) $(INCS) $(HWLOC_CFLAGS) $(JSONC_CFLAGS) \
              $(SCOTCH_CFLAGS) $(LAPACK_CFLAGS) $(CFLAGS)
LIBS_CORE  := $(SCOTCH_LIBS) $(HWLOC_LIBS) $(LAPACK_LIBS) -lm
LIBS_PROF  := $(JSONC_LIBS) -lz

CORE_SRC    := $(sort $(wildcard src/core/*.c))
# helpers of no component (safe opening, bounded reading): Slurm-free,
# store-free
UTIL_SRC    := $(sort $(wildcard src/util/*.c))
# the tnbc traces' format: written by the overlay, kept by the store
TRACE_SRC   := $(sort $(wildcard src/trace/*.c))
# profiles, their run history and the guard
PROFILE_SRC := $(sort $(wildcard src/profiles/*.c))
# the per-user profile store
STORE_SRC   := $(sort $(wildcard src/store/*.c))
# the Slurm-free launch model the plugin and clustermap's mpirun share
LAUNCH_SRC  := $(sort $(wildcard src/launch/*.c))
# the PMPI profiler (libclustermap-prof.so, with the overlays in it)
PMPI_SRC    := $(sort $(wildcard src/profiler/*.c))
CLI_SRC     := $(sort $(wildcard src/cli/*.c))
# clustermap's mpirun (src/mpirun/), put first in the PATH of placed batch
# jobs by the plugin
SHIM_SRC    := $(sort $(wildcard src/mpirun/*.c))
# The plugin is two shared objects: the placement module (the engine and
# its heavy libraries) and the thin clustermap.so, everything else.  The
# switch records and their cache use no Slurm symbol (libcm-topo.a, also
# linked by their unit test; the cache reads through libcm-util.a).
TOPO_SRC    := $(addprefix src/plugin/,switches.c topo_cache.c)
PLACE_SRC   := $(addprefix src/plugin/,place.c slurm_topo.c slurm_tree.c)
PLUGIN_SRC  := $(filter-out $(PLACE_SRC) $(TOPO_SRC),$(sort $(wildcard src/plugin/*.c)))
TEST_SRC    := $(sort $(wildcard test/unit/test_*.c))
TESTLIB_SRC := $(sort $(wildcard test/unit/lib/*.c))
# The communication overlays (docs/overlays.md), in the profiler library:
# the contention-free schedules (css_*, plain C), the overlays' text and
# interval sets (plain C), and the overlays that run them (MPI).  The
# plain-C parts are also a static library for their unit tests.
CSS_SRC     := $(sort $(wildcard src/overlay/css_*.c))
OVL_TEXT_SRC:= $(addprefix src/overlay/,ovl_config.c ovl_report.c ovl_ivl.c)
OVL_SRC     := $(filter-out $(OVL_TEXT_SRC),$(sort $(wildcard src/overlay/ovl_*.c)))
BENCH_SRC   := $(sort $(wildcard bench/engine/*.c))
BENCHLIB_SRC:= $(sort $(wildcard bench/engine/lib/*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBCORE   := $(BUILD)/libclustermap.a
LIBUTIL   := $(BUILD)/lib/libcm-util.a
LIBTRACE  := $(BUILD)/lib/libcm-trace.a
LIBPROFS  := $(BUILD)/lib/libcm-profiles.a
LIBSTORE  := $(BUILD)/lib/libcm-store.a
LIBLAUNCH := $(BUILD)/lib/libcm-launch.a
LIBTOPO   := $(BUILD)/lib/libcm-topo.a
LIBOVL    := $(BUILD)/lib/libcm-overlay.a
# the command's modules, for its main and for unit tests of its parts
LIBCLI    := $(BUILD)/lib/libcm-cli.a
# What a program that reads or writes the store links, in link order.
LIBS_STORE_ALL := $(LIBSTORE) $(LIBPROFS) $(LIBTRACE) $(LIBUTIL)
CLI       := $(BUILD)/clustermap
PMPI_SO   := $(BUILD)/libclustermap-prof.so
PLUGIN_SO := $(BUILD)/clustermap.so
PLACE_SO  := $(BUILD)/clustermap-place.so
SHIM      := $(BUILD)/bin/mpirun
# `clustermap calibrate`'s MPI program (src/calibrate/), beside the command
PINGPONG  := $(BUILD)/clustermap-pingpong
# The engine as a shared library as well: SONAME libclustermap.so.SOMAJOR
# (0 while the version is 0.x: any release may change the ABI), and its
# pkg-config file.  Programs of this tree link the static one.
VERSION   := $(shell sed -n 's/^\#define CM_VERSION "\(.*\)"/\1/p' src/core/clustermap.h)
SOMAJOR   := 0
LIBCORE_SO:= $(BUILD)/libclustermap.so.$(VERSION)
PCFILE    := $(BUILD)/clustermap.pc
TESTS     := $(patsubst test/unit/%.c,$(BUILD)/test/%,$(TEST_SRC))
BENCHES   := $(patsubst bench/engine/%.c,$(BUILD)/bench/%,$(BENCH_SRC)) $(BUILD)/bench/cutbound \
             $(BUILD)/bench/partbound

TARGETS := $(LIBCORE) $(LIBCORE_SO) $(PCFILE) $(LIBS_STORE_ALL) $(LIBLAUNCH) $(LIBTOPO) $(LIBOVL) \
           $(CLI) $(PMPI_SO) $(PLUGIN_SO) $(PLACE_SO) $(SHIM) $(PINGPONG)

.PHONY: all print-link-libs print-archives tests benches check check-quick check-stacks check-package deb unit-check deps demo bench bench-large bench-controller bench-sim bench-sim-gpu bench-sim-css install uninstall clean
all: $(TARGETS)

# The profiler sees no overlay header: what it calls of the overlays is
# src/profiler/prof_overlay.h, and the overlays see of the profiler that
# header only (-Isrc/profiler below), never prof.h.
$(BUILD)/obj/src/profiler/%.o: src/profiler/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) $(CFLAGS) -Isrc/profiler -Isrc/util -MMD -MP -c $< -o $@

$(BUILD)/obj/src/overlay/ovl_%.o: src/overlay/ovl_%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) $(CFLAGS) -Isrc/core -Isrc/profiler -Isrc/trace -Isrc/util -MMD -MP -c $< -o $@
# ovl_agree.c declares the few PMIx types it uses (forky has no
# libpmix-dev) and checks them against <pmix_common.h> where it is found.
PMIX_CFLAGS := $(shell $(PKG) --cflags pmix 2>/dev/null)
$(BUILD)/obj/src/overlay/ovl_agree.o: CFLAGS += $(PMIX_CFLAGS)

$(BUILD)/obj/src/plugin/%.o: src/plugin/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SLURM_CFLAGS) \
	  $(if $(HWLOC_SONAME),-DCMP_HWLOC_SONAME='"$(HWLOC_SONAME)"') -MMD -MP -c $< -o $@

# The plugin's default prof_lib= and mpirun_dir= are where `make install`
# puts the profiler and the launcher: config.o is rebuilt when LIBDIR or
# LIBEXECDIR (PREFIX) change.
LIBDIR_STAMP := $(BUILD)/libdir.stamp
$(LIBDIR_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(LIBDIR) $(LIBEXECDIR)' | cmp -s - $@ || echo '$(LIBDIR) $(LIBEXECDIR)' >$@
$(BUILD)/obj/src/launch/config.o: $(LIBDIR_STAMP)
$(BUILD)/obj/src/launch/config.o: CFLAGS_ALL += \
  -DCMP_DEFAULT_PROF_LIB='"$(LIBDIR)/libclustermap-prof.so"' \
  -DCMP_DEFAULT_MPIRUN_DIR='"$(LIBEXECDIR)/clustermap/bin"'
$(BUILD)/obj/src/launch/slurm_conf.o: CFLAGS_ALL += \
  $(if $(SLURM_CONF_DEFAULT),-DCMP_SLURM_CONF_DEFAULT='"$(SLURM_CONF_DEFAULT)"')
$(BUILD)/obj/src/cli/cmd_calibrate.o: $(LIBDIR_STAMP)
$(BUILD)/obj/src/cli/cmd_calibrate.o: CFLAGS_ALL += \
  -DCM_DEFAULT_PINGPONG='"$(LIBEXECDIR)/clustermap/pingpong"'
.PHONY: FORCE
FORCE:

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(LIBCORE): $(call obj,$(CORE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBCORE_SO): $(call obj,$(CORE_SRC))
	$(CC) $(LDFLAGS_ALL) -shared -Wl,-soname,libclustermap.so.$(SOMAJOR) -Wl,--as-needed \
	  -o $@ $^ $(LIBS_CORE)
	ln -sf $(notdir $@) $(BUILD)/libclustermap.so.$(SOMAJOR)
	ln -sf libclustermap.so.$(SOMAJOR) $(BUILD)/libclustermap.so

# Libs.private: what a static link needs besides (hwloc through its .pc)
$(PCFILE): src/core/clustermap.pc.in $(LIBDIR_STAMP)
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|; s|@LIBS_PRIVATE@|$(SCOTCH_LIBS) $(LAPACK_LIBS) -lm|' \
	    $< >$@

# One static library per component: $(call archive,OBJECTS)
define archive
@mkdir -p $(dir $@)
rm -f $@ && ar rcs $@ $^
endef
$(LIBUTIL): $(call obj,$(UTIL_SRC))
	$(archive)
$(LIBTRACE): $(call obj,$(TRACE_SRC))
	$(archive)
$(LIBPROFS): $(call obj,$(PROFILE_SRC))
	$(archive)
$(LIBSTORE): $(call obj,$(STORE_SRC))
	$(archive)
$(LIBLAUNCH): $(call obj,$(LAUNCH_SRC))
	$(archive)
$(LIBTOPO): $(call obj,$(TOPO_SRC))
	$(archive)
$(LIBOVL): $(call obj,$(CSS_SRC) $(OVL_TEXT_SRC))
	$(archive)
$(LIBCLI): $(call obj,$(filter-out src/cli/main.c,$(CLI_SRC)))
	$(archive)
$(call obj,$(TOPO_SRC)): CFLAGS_ALL += $(SLURM_CFLAGS) -Isrc/plugin
$(call obj,$(CSS_SRC)): CFLAGS_ALL += -Isrc/overlay

$(call obj,$(CLI_SRC)): CFLAGS_ALL += $(CAIRO_CFLAGS)

$(CLI): $(call obj,src/cli/main.c) $(LIBCLI) $(LIBLAUNCH) $(LIBS_STORE_ALL) $(LIBCORE)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS_PROF) $(LIBS_CORE) $(CAIRO_LIBS)

$(PINGPONG): src/calibrate/pingpong.c
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) $(CFLAGS) $(LDFLAGS_ALL) -o $@ $<

# The profiler's catch-all (src/profiler/prof_tramp.c): a trampoline for
# every entry point the MPI library exports that no wrapper defines, listed
# from the library itself and the other wrappers' objects.
PMPI_TRAMP_LIST := $(BUILD)/gen/prof_tramp_list.h
PMPI_WRAPPERS   := $(call obj,$(filter-out src/profiler/prof_tramp.c,$(PMPI_SRC)) $(OVL_SRC))
$(PMPI_TRAMP_LIST): src/profiler/tramp-list.sh $(PMPI_WRAPPERS)
	@mkdir -p $(dir $@)
	sh src/profiler/tramp-list.sh "$(MPICC)" $(PMPI_WRAPPERS) >$@.tmp && mv $@.tmp $@
$(BUILD)/obj/src/profiler/prof_tramp.o: $(PMPI_TRAMP_LIST)
$(BUILD)/obj/src/profiler/prof_tramp.o: CFLAGS += -I$(BUILD)/gen

# The overlays' objects before the core library they call into
# (cm_error_set); the version script exports the MPI and Fortran entry
# points only.
$(PMPI_SO): $(call obj,$(PMPI_SRC) $(OVL_SRC)) $(LIBOVL) $(LIBTRACE) $(LIBCORE) \
            src/profiler/libclustermap-prof.map
	$(MPICC) $(LDFLAGS_ALL) -shared -Wl,--version-script=src/profiler/libclustermap-prof.map \
	  -o $@ $(call obj,$(PMPI_SRC) $(OVL_SRC)) $(LIBOVL) $(LIBTRACE) $(LIBCORE) -ldl -lm

# The plugin is loaded by Slurm processes, which provide libslurm's symbols:
# it must not link -lslurm.  Core and profile code are linked in statically.
# Every Slurm client and daemon loads clustermap.so: --as-needed keeps the
# engine's libraries out of its NEEDED list (they stay on the command line
# so that a stray reference still resolves; t0512 checks the list), and the
# version script exports the SPANK symbols only.  The placement module is
# dlopen()ed by srun when a step is placed (src/plugin/srun_step.c).
$(PLUGIN_SO): $(call obj,$(PLUGIN_SRC)) $(LIBLAUNCH) $(LIBS_STORE_ALL) $(LIBCORE) \
              src/plugin/clustermap.map
	$(CC) $(LDFLAGS_ALL) -shared -Wl,--as-needed -Wl,--version-script=src/plugin/clustermap.map \
	  -o $@ $(call obj,$(PLUGIN_SRC)) \
	  -Wl,--whole-archive $(LIBLAUNCH) $(LIBS_STORE_ALL) -Wl,--no-whole-archive \
	  $(LIBCORE) $(LIBS_PROF) $(LIBS_CORE)

$(PLACE_SO): $(call obj,$(PLACE_SRC)) $(LIBTOPO) $(LIBLAUNCH) $(LIBUTIL) $(LIBCORE) \
             src/plugin/clustermap-place.map
	$(CC) $(LDFLAGS_ALL) -shared -Wl,--as-needed \
	  -Wl,--version-script=src/plugin/clustermap-place.map \
	  -o $@ $(call obj,$(PLACE_SRC)) $(LIBTOPO) $(LIBLAUNCH) $(LIBUTIL) $(LIBCORE) $(LIBS_CORE)

# mpiexec is the same launcher under Open MPI's other name.
$(SHIM): $(call obj,$(SHIM_SRC)) $(LIBLAUNCH) $(LIBS_STORE_ALL) $(LIBCORE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -Wl,--as-needed -o $@ $^ $(LIBS_PROF) $(LIBS_CORE)
	ln -sf mpirun $(dir $@)mpiexec

# A unit test: its source, the objects it needs, the test library.
define UNIT_LINK
@mkdir -p $(dir $@)
$(CC) $(CFLAGS_ALL) -Itest/unit/lib -Isrc/overlay -Isrc/plugin $(SLURM_CFLAGS) $(LDFLAGS_ALL) \
  -o $@ $^ $(LIBS_PROF) $(LIBS_CORE) $(CMOCKA_LIBS)
endef
UNIT_LIBS = $(call obj,$(TESTLIB_SRC)) $(LIBCLI) $(LIBLAUNCH) $(LIBTOPO) $(LIBOVL) $(LIBS_STORE_ALL) $(LIBCORE)

$(BUILD)/test/%: test/unit/%.c $(UNIT_LIBS)
	$(UNIT_LINK)

# the child that runs as the user calls no Slurm function: its test links it
$(BUILD)/test/test_as_user: $(call obj,src/plugin/as_user.c)

$(BUILD)/bench/%: bench/engine/%.c $(call obj,$(BENCHLIB_SRC)) $(LIBCORE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Ibench/engine/lib $(LDFLAGS_ALL) -o $@ $^ $(LIBS_CORE)

# the judge's floors (bench/README.md): a plain program, no library
$(BUILD)/bench/cutbound: bench/sim/cutbound.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $<
$(BUILD)/bench/partbound: bench/sim/partbound.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $<

benches: all $(BENCHES)

tests: all $(TESTS) $(BENCHES)

unit-check: tests
	@test/run-unit.sh $(BUILD)

check:
	@test/check.sh

# The shell tests numbered below 0500 start no Slurm cluster.
check-quick: tests
	@test/run-unit.sh $(BUILD) unit
	@prove -j2 $(sort $(wildcard test/sh/t0[0-4]*.t))

# The profiler and integration tests on the other Slurm / Open MPI stacks
# (Debian 13 trixie, Debian testing forky): test/stacks/README.md.
# CM_STACKS="trixie" picks some.
check-stacks:
	@test/stacks/check $(CM_STACKS)

# Debian packages (debian/): built in a copy of the tree, into $(BUILD)/deb/.
deb:
	@scripts/build-debs.sh $(BUILD)/deb

# The packages installed into a fresh Debian root, a placed job run from
# the installed files only (test/pkg/README.md).
check-package:
	@test/pkg/check

deps:
	@scripts/install-deps.sh

# demo and bench re-enter make so that a `make deps demo` on a fresh machine
# evaluates pkg-config only after the packages are installed.
demo:
	@$(MAKE) --no-print-directory -s all
	@scripts/demo.sh $(BUILD)

bench:
	@$(MAKE) --no-print-directory -s benches
	@bench/run.sh $(BUILD)

# The engine at 65,536 to 1,048,576 ranks (bench/large.sh: about 30
# minutes with Scotch, LARGE_SCOTCH_LIMIT=0 leaves it out).
bench-large:
	@$(MAKE) --no-print-directory -s benches
	@bench/large.sh $(BUILD)

# The controller's RPCs and time per placed srun at 10,000 nodes
# (bench/controller/ctlload.sh: root, its own virtual cluster; about 3
# minutes per repetition, CTL_REPEAT=R).
bench-controller:
	@$(MAKE) --no-print-directory -s all
	@bench/controller/ctlload.sh $(BUILD)

# The SimGrid judge: simulated run time of the mini-applications under
# every placement (bench/sim/README.md).
bench-sim:
	@$(MAKE) --no-print-directory -s all
	@bench/sim/run.sh $(BUILD)

# The judge on the GPU platforms alone, every mini-application (bench-sim
# runs the mixture-of-experts layer and the 3-D halos there).
bench-sim-gpu:
	@$(MAKE) --no-print-directory -s all
	@CPU=0 GPU=all bench/sim/run.sh $(BUILD) bench/sim/results-gpu

# The CSS schedules (seed 003) against the library's MPI_Alltoallv and the
# classic ordering, at 64 and 128 ranks (bench/sim/README.md, "CSS
# schedules"; it builds its own benchmark with smpicc).
bench-sim-css:
	@bench/sim/css/run.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(SLURM_PLUGINDIR)
	$(if $(CLI_SRC),install -m 0755 $(CLI) $(DESTDIR)$(BINDIR)/clustermap)
	install -m 0644 $(LIBCORE) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(LIBCORE_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIBCORE_SO)) $(DESTDIR)$(LIBDIR)/libclustermap.so.$(SOMAJOR)
	ln -sf libclustermap.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libclustermap.so
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 0644 $(PCFILE) $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 0644 src/core/clustermap.h $(DESTDIR)$(INCDIR)/
	$(if $(PMPI_SRC),install -m 0755 $(PMPI_SO) $(DESTDIR)$(LIBDIR)/)
	$(if $(PLUGIN_SRC),install -m 0755 $(PLUGIN_SO) $(PLACE_SO) $(DESTDIR)$(SLURM_PLUGINDIR)/)
	install -d $(DESTDIR)$(LIBEXECDIR)/clustermap/bin
	$(if $(SHIM_SRC),install -m 0755 $(SHIM) $(DESTDIR)$(LIBEXECDIR)/clustermap/bin/mpirun)
	$(if $(SHIM_SRC),ln -sf mpirun $(DESTDIR)$(LIBEXECDIR)/clustermap/bin/mpiexec)
	install -m 0755 $(PINGPONG) $(DESTDIR)$(LIBEXECDIR)/clustermap/pingpong
	for f in $(wildcard docs/man/*.1); do install -m 0644 $$f $(DESTDIR)$(MANDIR)/man1/; done
	for f in $(wildcard docs/man/*.8); do install -m 0644 $$f $(DESTDIR)$(MANDIR)/man8/; done
	install -d $(DESTDIR)$(DATADIR)/clustermap/nodes
	install -m 0644 $(wildcard test/data/nodes/*.xml) $(DESTDIR)$(DATADIR)/clustermap/nodes/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/clustermap $(DESTDIR)$(LIBDIR)/libclustermap.a \
	  $(DESTDIR)$(LIBDIR)/$(notdir $(LIBCORE_SO)) \
	  $(DESTDIR)$(LIBDIR)/libclustermap.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libclustermap.so \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/clustermap.pc \
	  $(DESTDIR)$(INCDIR)/clustermap.h $(DESTDIR)$(LIBDIR)/libclustermap-prof.so \
	  $(DESTDIR)$(SLURM_PLUGINDIR)/clustermap.so \
	  $(DESTDIR)$(SLURM_PLUGINDIR)/clustermap-place.so \
	  $(DESTDIR)$(LIBEXECDIR)/clustermap/bin/mpirun \
	  $(DESTDIR)$(LIBEXECDIR)/clustermap/bin/mpiexec \
	  $(DESTDIR)$(LIBEXECDIR)/clustermap/pingpong \
	  $(foreach f,$(wildcard docs/man/*.1),$(DESTDIR)$(MANDIR)/man1/$(notdir $(f))) \
	  $(foreach f,$(wildcard docs/man/*.8),$(DESTDIR)$(MANDIR)/man8/$(notdir $(f))) \
	  $(foreach f,$(wildcard test/data/nodes/*.xml),$(DESTDIR)$(DATADIR)/clustermap/nodes/$(notdir $(f)))
	-rmdir $(DESTDIR)$(LIBEXECDIR)/clustermap/bin $(DESTDIR)$(LIBEXECDIR)/clustermap \
	  $(DESTDIR)$(DATADIR)/clustermap/nodes $(DESTDIR)$(DATADIR)/clustermap 2>/dev/null

# What a program linking the static libraries needs besides, in link
# order: test/fuzz/build.sh links its targets with it.
print-link-libs:
	@echo $(LIBS_PROF) $(LIBS_CORE)

# The component libraries a Slurm-free, MPI-free program links (the fuzz
# targets, test/fuzz/build.sh), under BUILD.
print-archives:
	@echo $(LIBLAUNCH) $(LIBTOPO) $(LIBS_STORE_ALL) $(LIBCORE)

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
