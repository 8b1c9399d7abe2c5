# tabd — the two commands: `make run` and `make test`.
# Both install what a fresh Debian machine lacks (apt) before building.

SWIFT      ?= swift
CONFIG     ?= debug
BUILD_DIR  := .build/$(CONFIG)
RUN_DIR    := $(CURDIR)/run
PREFIX     ?= /usr/local
DESTDIR    ?=

# Debian packages the build, the tests and `make run` need (command or header -> package).
PIP_PACKAGES := pytest wheel mypy
APT_PACKAGES := libevent-dev socat netcat-openbsd pkg-config openssl libcrypt-dev systemd util-linux gcc python3 man-db

.PHONY: all build test run deps man man-files sdk-prebuilt bench bench-core bench-memory bench-hostile bench-instructions bench-pairs bench-replay bench-isolation bench-nested bench-scale clean install install-files uninstall

all: build

# Installs only what is missing; apt-get update runs first, once, when anything is.
deps:
	@missing=""; \
	pkg-config --exists libevent 2>/dev/null || missing="$$missing libevent-dev"; \
	command -v pkg-config >/dev/null || missing="$$missing pkg-config"; \
	command -v socat >/dev/null || missing="$$missing socat"; \
	command -v nc >/dev/null || missing="$$missing netcat-openbsd"; \
	command -v openssl >/dev/null || missing="$$missing openssl"; \
	[ -f /usr/include/crypt.h ] || missing="$$missing libcrypt-dev"; \
	command -v systemd-analyze >/dev/null || missing="$$missing systemd"; \
	command -v setpriv >/dev/null || missing="$$missing util-linux"; \
	command -v cc >/dev/null || missing="$$missing gcc libc6-dev"; \
	command -v python3 >/dev/null || missing="$$missing python3"; \
	command -v man >/dev/null || missing="$$missing man-db"; \
	if [ -n "$$missing" ]; then \
		echo "make: installing$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@# The Python client's tests: pytest, wheel for pip to install the package offline, mypy.
	@python3 -c 'import pytest, wheel, mypy' 2>/dev/null || python3 -m pip install -q $(PIP_PACKAGES)

build: deps
	$(SWIFT) build -c $(CONFIG)

# make test: every suite, in stages timed by scripts/stage, which ends with one summary line per
# stage (what it counted, how long it took; the logs in .build/stages/). The builds that do not
# share .build (the release build in a scratch directory of its own, tabd-web's package, the
# fuzz targets) run in the background one after the other, while the debug build's suites run
# and leave part of the machine idle; each suite that needs one of them waits for it.
# TabClientTests run in a test process of their own: their tests are async, so their tabd
# and the mirrors they start need Swift's task pool (two threads here), which the other
# suites' synchronous tests may hold while they wait for their own tabd to be reaped
# (Foundation reaps children on one thread): together they could wait for each other.
STAGE := scripts/stage
TEST_RELEASE_BUILD := $(CURDIR)/.build/test-release
TEST_RELEASE_BIN   := $(TEST_RELEASE_BUILD)/release
TEST_SDK_PREBUILT  := $(CURDIR)/.build/test-sdk-prebuilt
test: deps deps-web
	@$(STAGE) begin
	@$(STAGE) run   build            $(SWIFT) build --build-tests
	@# The prebuilt SDK once (from the debug tabd: only its --version is read), for every suite's
	@# installs (SDK_PREBUILT: they copy it instead of compiling it; the suites' first install
	@# waits for this stage, SDK_PREBUILT_STAGE).
	@$(STAGE) start build-sdk        make -s sdk-prebuilt BIN_DIR=$(CURDIR)/.build/debug SDK_PREBUILT_OUT=$(TEST_SDK_PREBUILT)
	@# The outside package (TabClientTests' aPackageOutside…: a copy of the checkout and docs/clients.md's
	@# examples built as a package of their own, about a minute of compiling) in a test process of
	@# its own beside the suites, which spend part of their time waiting on tabd.
	@$(STAGE) start client-outside   $(SWIFT) test --skip-build --filter aPackageOutside
	@$(STAGE) start build-release    --after build-sdk $(SWIFT) build -c release --scratch-path $(TEST_RELEASE_BUILD)
	@$(STAGE) start build-web        --after build-release $(SWIFT) build --package-path web
	@$(STAGE) start build-fuzz       --after build-web env FUZZ_QUICK=1 FUZZ_BUILD_ONLY=1 fuzz/run.sh
	@$(STAGE) run   suites           env SDK_PREBUILT=$(TEST_SDK_PREBUILT) SDK_PREBUILT_STAGE=$(CURDIR)/.build/stages/build-sdk $(SWIFT) test --skip-build --skip TabClientTests
	@$(STAGE) run   client-swift     $(SWIFT) test --skip-build --filter TabClientTests --skip aPackageOutside
	@$(STAGE) wait  client-outside
	@$(STAGE) run   client-python    env TABD_BIN_DIR=$(CURDIR)/.build/debug python3 -m pytest -q -p no:cacheprovider clients/python/tests
	@$(STAGE) wait  build-sdk
	@$(STAGE) wait  build-release
	@# The end-to-end suites against the release build, but what does not run the build under test:
	@# the Swift SDK's package tests (builds of a plugin package against the installed SDK, the same
	@# whichever tabd is installed; the release tabd loads Swift plugins all the same: the reference
	@# plugins, built on the SDK), the module graph and the header's ABI table (checks of sources),
	@# and systemd-analyze's verdict on the unit files (the same files whichever tabd is installed).
	@$(STAGE) run   release-e2e      env TABD_TEST_BIN_DIR=$(TEST_RELEASE_BIN) SDK_PREBUILT=$(TEST_SDK_PREBUILT) $(SWIFT) test --skip-build --filter EndToEndTests --skip TabClientTests --skip SwiftSDKPackageTests --skip ModuleGraphTests --skip ABIDocsTests --skip R15RuleCoverageTests --skip unitsVerifyAndAreHardened
	@# Against the release build too, but the mirror law (its generated streams run once, against the
	@# debug daemon) and the outside package (a build of clients.md's examples, not of tabd).
	@$(STAGE) run   release-client   env TABD_TEST_BIN_DIR=$(TEST_RELEASE_BIN) $(SWIFT) test --skip-build --filter TabClientTests --skip mirrorLaw --skip aPackageOutside
	@$(STAGE) wait  build-web
	@$(STAGE) run   web              env $(WEB_TEST_ENV) python3 -m pytest -q -s -p no:cacheprovider web/tests
	@$(STAGE) wait  build-fuzz
	@# Every fuzz target builds and runs a few seconds over its corpus (fuzz/README.md).
	@$(STAGE) run   fuzz             env FUZZ_QUICK=1 FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) fuzz/run.sh
	@$(STAGE) summary

# make test on a busy machine (scripts/test-stress): STRESS_LOOPS busy loops (default 1) hold
# cores beside it, STRESS_RUNS runs in a row (default 1); STRESS_FRESH=1 runs `bash .ci/run` in a
# fresh clone of HEAD each time, as CI does. Each run ends with its stage summary.
STRESS_LOOPS ?= 1
STRESS_RUNS  ?= 1
STRESS_FRESH ?=
.PHONY: test-stress
test-stress: deps
	scripts/test-stress --loops $(STRESS_LOOPS) --runs $(STRESS_RUNS) $(if $(STRESS_FRESH),--fresh)

# What ships, tested: the release build (optimized, -enforce-exclusivity=unchecked, the
# raw-memory paths that exist only there) under every end-to-end test, the restart law's
# among them. The debug test bundle drives the release tabd, tabctl and plugins
# (TABD_TEST_BIN_DIR; the unit suites test modules, not binaries, and stay in debug). make
# test runs the same, in its stages.
.PHONY: test-release
test-release: deps
	$(SWIFT) build -c release --scratch-path $(TEST_RELEASE_BUILD)
	$(SWIFT) build --build-tests
	TABD_TEST_BIN_DIR=$(TEST_RELEASE_BIN) $(SWIFT) test --skip-build --filter EndToEndTests --skip TabClientTests
	TABD_TEST_BIN_DIR=$(TEST_RELEASE_BIN) $(SWIFT) test --skip-build --filter TabClientTests

# The fuzz targets (fuzz/README.md): each built from this package's module graph with
# libFuzzer and ASan, then run FUZZ_SECONDS (default 60) after the other. FUZZ_TARGETS picks
# some (json journal request config helper-wire json-helpers); FUZZ_JOBS runs several at once.
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 3
FUZZ_TARGETS ?=
.PHONY: fuzz
fuzz: deps
	$(SWIFT) build
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh $(FUZZ_TARGETS)

# tabd-web (web/: a package of its own, so tabd never builds or links NIO) and its test in
# headless Chromium driven by selenium. Screenshots go to web/artifacts/.
WEB_BIN := web/.build/$(CONFIG)/tabd-web
.PHONY: web test-web deps-web install-web
web: deps
	$(SWIFT) build -c $(CONFIG) --package-path web

# Debian's chromium and chromium-driver, selenium from PyPI: installed only when missing.
deps-web: deps
	@missing=""; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	[ -x /usr/bin/chromedriver ] || missing="$$missing chromium-driver"; \
	command -v ss >/dev/null || missing="$$missing iproute2"; \
	if [ -n "$$missing" ]; then \
		echo "make: installing$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@python3 -c 'import selenium' 2>/dev/null || python3 -m pip install -q selenium

WEB_TEST_ENV := TABD_BIN_DIR=$(CURDIR)/.build/debug TABD_WEB_BIN=$(CURDIR)/web/.build/debug/tabd-web
test-web: deps-web
	$(SWIFT) build
	$(SWIFT) build --package-path web
	env $(WEB_TEST_ENV) python3 -m pytest -q -s -p no:cacheprovider web/tests

# The restart law for longer (Tests/EndToEndTests/RestartLawTests.swift): fresh random seeds
# for SOAK_SECONDS (default 600), each driving a real tabd with both reference plugins through
# random streams of every protocol command, valid and invalid, and restarting it every few
# dozen requests (SIGTERM and SIGKILL in turn) to check that `controllers` and every `state`
# answer the same bytes afterwards and that event numbers never repeat. `make test` runs
# three fixed seeds of it; a failure names its seed, and TABD_SOAK_SEEDS=<seed> runs that one
# again (TABD_SOAK_SHRINK=1 also cuts it down to a short sequence of requests).
SOAK_SECONDS ?= 600
.PHONY: soak
soak: deps
	$(SWIFT) build
	TABD_SOAK_SECONDS=$(SOAK_SECONDS) $(SWIFT) test --filter RestartLaw

# Starts tabd in the foreground: socket ./run/tabd.sock, state ./run/state, the reference
# plugins loaded (login gate with user demo / password demo, orientation rules). tabctl does
# not look in the current directory for a socket: it prints the line that points it there.
# Built into a directory of its own (.build/run: SwiftPM's lock is per build directory), so
# that a `make test` or `swift build` running meanwhile does not hold up a restart.
RUN_BUILD := $(CURDIR)/.build/run
WEB_PORT  ?= 8765
run: deps
	$(SWIFT) build --scratch-path $(RUN_BUILD)
	@mkdir -p $(RUN_DIR)/state
	@[ -f $(RUN_DIR)/credentials ] || { printf 'demo:%s\n' "$$(openssl passwd -6 demo)" > $(RUN_DIR)/credentials; chmod 600 $(RUN_DIR)/credentials; }
	@# tabd serves first; tabd-web (its own package: NIO and Hummingbird, minutes on a fresh
	@# clone) builds in the background, then scripts/run-console starts it once tabd listens,
	@# prints its address with a fresh token here, and stops it when tabd ends (Ctrl-C, or a
	@# kill -9 of tabd). $$$$ is this shell's pid, which becomes tabd's at the exec below.
	@rm -f $(RUN_DIR)/tabd-web.log; \
	( $(SWIFT) build -c $(CONFIG) --package-path web > $(RUN_DIR)/tabd-web-build.log 2>&1 \
		|| { echo "tabd-web did not build (see $(RUN_DIR)/tabd-web-build.log); tabd goes on without the console" >&2; exit 1; }; \
	  exec scripts/run-console $$$$ $(RUN_DIR) $(WEB_BIN) $(WEB_PORT) ) & \
	echo "tabd: socket $(RUN_DIR)/tabd.sock, state $(RUN_DIR)/state; Ctrl-C stops it"; \
	echo "for tabctl, in another terminal:"; \
	echo "export TABD_SOCKET=$(RUN_DIR)/tabd.sock"; \
	echo "the console (tabd-web) is building in the background: its address follows here when it is ready"; \
	exec $(RUN_BUILD)/debug/tabd --config config/run.yaml

# The one version: Sources/TabProtocol/Version.swift (TabdVersion.string).
VERSION     := $(shell sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/TabProtocol/Version.swift)
BINDIR      := $(PREFIX)/bin
PLUGINDIR   := $(PREFIX)/lib/tabd/plugins
INCLUDEDIR  := $(PREFIX)/include
PKGCONFDIR  := $(PREFIX)/lib/pkgconfig
UNITDIR     := $(PREFIX)/lib/systemd/system
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
TMPFILESDIR := $(PREFIX)/lib/tmpfiles.d
DOCDIR      := $(PREFIX)/share/doc/tabd
SDKDIR      := $(PREFIX)/share/tabd/swift/tabd-sdk
SDKPREBUILTDIR := $(PREFIX)/share/tabd/swift/tabd-sdk-prebuilt
MANDIR      := $(PREFIX)/share/man
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  := $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR := $(PREFIX)/share/fish/vendor_completions.d
CONFDIR     ?= /etc/tabd
SUBST        = sed -e 's|/usr/local|$(PREFIX)|g' -e 's|/etc/tabd|$(CONFDIR)|g' -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g'

# Installs a release build. PREFIX (default /usr/local), CONFDIR (default /etc/tabd) and
# DESTDIR as usual; the example config goes to $(CONFDIR)/tabd.yaml and an empty credentials
# file beside it, unless they are there already.
install:
	$(MAKE) build CONFIG=release
	$(MAKE) install-files BIN_DIR=.build/release

# The installation itself, from already built binaries in BIN_DIR (the tests install their
# debug build into a DESTDIR this way, without a release build). tabd(8) and tabctl(1) are
# written from those binaries' own argument parsers (BIN_DIR/tabd-manpage, man/*.roff for
# the hand-written sections), tabd.yaml(5) is man/tabd.yaml.5, and the completions are
# what tabctl --generate-completion-script prints.
BIN_DIR ?= .build/release
# SDK_PREBUILT: a directory sdk/prebuild.sh already wrote from the same tree and Swift (the
# tests' installs copy one instead of compiling the SDK each time); empty, install-files
# compiles it.
SDK_PREBUILT ?=
install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(INCLUDEDIR)/tabd $(DESTDIR)$(PKGCONFDIR) \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(CONFDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(BIN_DIR)/tabd $(BIN_DIR)/tabctl $(DESTDIR)$(BINDIR)/
	install -m 0755 $(BIN_DIR)/libLoginGate.so $(BIN_DIR)/libOrientationRules.so $(DESTDIR)$(PLUGINDIR)/
	install -m 0644 Sources/CTabPolicy/include/tabd/policy.h $(DESTDIR)$(INCLUDEDIR)/tabd/policy.h
	$(SUBST) systemd/tabd-policy.pc.in > $(DESTDIR)$(PKGCONFDIR)/tabd-policy.pc
	$(SUBST) systemd/tabd.service > $(DESTDIR)$(UNITDIR)/tabd.service
	$(SUBST) systemd/tabd.socket > $(DESTDIR)$(UNITDIR)/tabd.socket
	install -m 0644 systemd/tabd.sysusers $(DESTDIR)$(SYSUSERSDIR)/tabd.conf
	install -m 0644 systemd/tabd.tmpfiles $(DESTDIR)$(TMPFILESDIR)/tabd.conf
	@# The docs as the source tree has them, so that their links work where they are installed:
	@# README.md links to docs/…, examples/… and BENCHMARKS.md; the plugin guide to hello.c
	@# and policy.h beside it (docs/ has links to both). The example configuration too.
	install -d $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/docs/images $(DESTDIR)$(DOCDIR)/examples
	install -m 0644 README.md BENCHMARKS.md BENCHMARKS-HISTORY.md tabd.example.yaml $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/*.md Plugins/examples/hello.c Sources/CTabPolicy/include/tabd/policy.h $(DESTDIR)$(DOCDIR)/docs/
	install -m 0644 docs/images/*.png $(DESTDIR)$(DOCDIR)/docs/images/
	install -m 0644 examples/README.md $(DESTDIR)$(DOCDIR)/examples/
	install -m 0755 examples/mirror.py $(DESTDIR)$(DOCDIR)/examples/
	@# The Swift SDK as a package of its own, for plugins' Package.swift (docs/plugins.md,
	@# "A plugin in Swift"): sdk/Package.swift and its targets' directories of Sources/.
	sdk/install.sh $(BIN_DIR)/tabd $(DESTDIR)$(SDKDIR) $(SDKDIR)
	@# The same SDK compiled (sdk/prebuild.sh): a package beside it that a plugin names the same
	@# way, whose build compiles none of the SDK's sources.
	$(if $(SDK_PREBUILT),rm -rf $(DESTDIR)$(SDKPREBUILTDIR) && cp -R $(SDK_PREBUILT) $(DESTDIR)$(SDKPREBUILTDIR),sdk/prebuild.sh $(BIN_DIR)/tabd $(DESTDIR)$(SDKDIR) $(DESTDIR)$(SDKPREBUILTDIR))
	$(call write-man-pages,$(DESTDIR)$(MANDIR)/man1,$(DESTDIR)$(MANDIR)/man5,$(DESTDIR)$(MANDIR)/man8)
	$(BIN_DIR)/tabctl --generate-completion-script bash > $(DESTDIR)$(BASHCOMPDIR)/tabctl
	$(BIN_DIR)/tabctl --generate-completion-script zsh > $(DESTDIR)$(ZSHCOMPDIR)/_tabctl
	$(BIN_DIR)/tabctl --generate-completion-script fish > $(DESTDIR)$(FISHCOMPDIR)/tabctl.fish
	[ -f $(DESTDIR)$(CONFDIR)/tabd.yaml ] || $(SUBST) tabd.example.yaml > $(DESTDIR)$(CONFDIR)/tabd.yaml
	@# The login gate's credentials: none yet, so a fresh install starts and serves with every
	@# tab but the login tab refused until an operator adds a user (docs/operations.md).
	[ -f $(DESTDIR)$(CONFDIR)/credentials ] || install -m 0640 /dev/null $(DESTDIR)$(CONFDIR)/credentials

# The prebuilt SDK alone, from BIN_DIR's tabd, into SDK_PREBUILT_OUT: what install-files
# compiles, for a later `make install-files SDK_PREBUILT=…` to copy (make test's build-sdk).
SDK_PREBUILT_OUT ?= .build/sdk-prebuilt
sdk-prebuilt:
	sdk/install.sh $(BIN_DIR)/tabd $(SDK_PREBUILT_OUT)-sources
	sdk/prebuild.sh $(BIN_DIR)/tabd $(SDK_PREBUILT_OUT)-sources $(SDK_PREBUILT_OUT)

# The man pages, whole, from BIN_DIR's binaries: tabctl(1) into $(1), tabd.yaml(5) into $(2),
# tabd(8) into $(3). man/tabctl.1.roff and man/tabd.8.roff are only the hand-written sections
# (`man -l` on them shows fragments); tabd-manpage puts the parsers' part before them.
define write-man-pages
	$(BIN_DIR)/tabd-manpage $(BIN_DIR)/tabctl 1 man/tabctl.1.roff > $(1)/tabctl.1
	$(BIN_DIR)/tabd-manpage $(BIN_DIR)/tabd 8 man/tabd.8.roff > $(3)/tabd.8
	$(SUBST) -i $(1)/tabctl.1 $(3)/tabd.8
	$(SUBST) man/tabd.yaml.5 > $(2)/tabd.yaml.5
endef

# The man pages from a checkout, as `make install` writes them, into MAN_DIR (.build/man):
# `make man && man -l .build/man/tabd.8` (and tabctl.1, tabd.yaml.5). man-files writes them
# from already built binaries in BIN_DIR, as install-files does.
MAN_DIR ?= .build/man
man: build
	$(MAKE) -s man-files BIN_DIR=$(BUILD_DIR)
	@echo "man -l $(MAN_DIR)/tabd.8, $(MAN_DIR)/tabctl.1 or $(MAN_DIR)/tabd.yaml.5 shows them"

man-files:
	install -d $(MAN_DIR)
	$(call write-man-pages,$(MAN_DIR),$(MAN_DIR),$(MAN_DIR))

# tabd-web and its unit (installed, not enabled: docs/operations.md, "The web console").
install-web:
	$(SWIFT) build -c release --package-path web
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR)
	install -m 0755 web/.build/release/tabd-web $(DESTDIR)$(BINDIR)/
	cp -r web/.build/release/tabd-web_tabd-web.resources $(DESTDIR)$(BINDIR)/
	$(SUBST) systemd/tabd-web.service > $(DESTDIR)$(UNITDIR)/tabd-web.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tabd $(DESTDIR)$(BINDIR)/tabctl
	rm -f $(DESTDIR)$(PLUGINDIR)/libLoginGate.so $(DESTDIR)$(PLUGINDIR)/libOrientationRules.so
	rm -f $(DESTDIR)$(INCLUDEDIR)/tabd/policy.h $(DESTDIR)$(PKGCONFDIR)/tabd-policy.pc
	rm -f $(DESTDIR)$(UNITDIR)/tabd.service $(DESTDIR)$(UNITDIR)/tabd.socket
	rm -f $(DESTDIR)$(SYSUSERSDIR)/tabd.conf $(DESTDIR)$(TMPFILESDIR)/tabd.conf
	rm -rf $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SDKDIR) $(DESTDIR)$(SDKPREBUILTDIR)
	-rmdir $(dir $(DESTDIR)$(SDKDIR)) $(DESTDIR)$(PREFIX)/share/tabd 2>/dev/null
	rm -f $(DESTDIR)$(MANDIR)/man1/tabctl.1 $(DESTDIR)$(MANDIR)/man5/tabd.yaml.5 $(DESTDIR)$(MANDIR)/man8/tabd.8
	rm -f $(DESTDIR)$(BASHCOMPDIR)/tabctl $(DESTDIR)$(ZSHCOMPDIR)/_tabctl $(DESTDIR)$(FISHCOMPDIR)/tabctl.fish
	-rmdir $(DESTDIR)$(INCLUDEDIR)/tabd $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(PREFIX)/lib/tabd 2>/dev/null
	@echo "kept: $(CONFDIR) (configuration and credentials) and /var/lib/tabd (state)"

# tabd against Redis and the bare libevent floor, one run on this machine (about 4 minutes);
# the report goes to Benchmarks/results/latest.md and into BENCHMARKS.md. Settings: see the
# head of Benchmarks/harness/run.sh (BENCH_SECONDS, BENCH_REPEAT, BENCH_IDLE, ...).
bench: deps
	$(SWIFT) build -c release
	BENCH_RECORD=BENCHMARKS.md Benchmarks/harness/run.sh

# One client flooding LoginGate with failed logins (half of them with 1 MB user names) while
# another pings: ping p50/p99/max alone and during the flood, and tabd's RSS before and after
# (about 25 s). Settings: see the head of Benchmarks/harness/loginflood.sh (FLOOD_SECONDS, ...).
.PHONY: bench-loginflood
bench-loginflood: deps
	$(SWIFT) build -c release
	Benchmarks/harness/loginflood.sh

# Memory under hostile clients (BENCHMARKS.md, "Hostile clients"): the end-to-end tests that
# attack a real tabd print RSS before, at the peak and after, and how long others waited.
bench-memory: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter HostileClientTests 2>&1 | grep -E '^figure:|Test run'

# The hostile harness of issue 32 (BENCHMARKS.md, "Hostile clients, third pass"): every attack
# of the issue against the release build — big states and another client's ping, a half-closed
# reader, hoarded slots, a FIFO and an alias bomb at reload, a hard-linked lock, a squatted
# socket, a full 2 MiB disk — one line each (about 2 minutes; root for slots, squat and disk).
# TABD=path runs it against another build (the "before" figures).
bench-hostile: deps
	$(SWIFT) build -c release
	Benchmarks/harness/hostile.py $(if $(TABD),--tabd $(TABD))

# User-space instructions per `select` in tabd, counted by callgrind (steady where ops/s is
# noisy; for comparing two builds), then per tap, state, set_tabs...; last, R15's
# open_drawer + close_drawer and push + pop beside a flat select under the same load, with
# issue 42's target (open_drawer / close_drawer no more than a select; r15.sh exits 1 above
# it). Installs valgrind when missing.
bench-instructions: deps
	$(SWIFT) build -c release
	Benchmarks/harness/instructions.sh
	Benchmarks/harness/instructions.sh 8 tap
	Benchmarks/harness/instructions.sh 8 store
	Benchmarks/harness/instructions.sh 8 state
	Benchmarks/harness/instructions.sh 8 state-encoded
	Benchmarks/harness/instructions.sh 8 set-tabs
	Benchmarks/harness/instructions.sh 8 fanout
	Benchmarks/harness/r15.sh 8

# How a change's cost grows with the controller (issue 41): callgrind instructions per request
# at 6 tabs and at 10,000 (1,000 for add/remove and customize.move), with the ratio against its
# target, and another client's ping p99 while one floods badges, then adds and removes tabs, on
# a 10,000-tab controller (BENCHMARKS.md, "A change costs what it changes"). About 6 minutes.
.PHONY: bench-scale
bench-scale: deps
	$(SWIFT) build -c release
	Benchmarks/harness/scale.sh
	Benchmarks/harness/scale-ping.sh

# tabd against the libevent floor in alternating pairs, seconds apart (the P=16 target).
bench-isolation: deps
	$(SWIFT) build -c release
	Benchmarks/harness/isolation.sh

# Nested select (R13) against flat select, in alternating pairs (BENCHMARKS.md, issue 18).
bench-nested: deps
	$(SWIFT) build -c release
	Benchmarks/harness/nested-pairs.sh
	Benchmarks/harness/nested-pairs.sh 3 4 tap

bench-pairs: deps
	$(SWIFT) build -c release
	Benchmarks/harness/floor-pairs.sh

# How long a start takes on a full journal (64 MiB of records, the default compact_bytes).
bench-replay: deps
	$(SWIFT) build -c release
	Benchmarks/harness/replay.sh

# TabCore's own micro-benchmarks (ordo-one/benchmark; the first run builds its tooling).
bench-core: deps
	cd Benchmarks/core && $(SWIFT) package --allow-writing-to-package-directory benchmark --no-progress

clean:
	rm -rf .build run
