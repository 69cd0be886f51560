# ssvc: `make run` and `make test` are all a fresh Debian machine with the
# Swift toolchain needs; both install what is missing first.

SWIFT      ?= swift
BUILD_DIR  := .build/debug
RUN_DIR    := $(CURDIR)/run
APT_NEEDS  := libsodium-dev zlib1g-dev libdeflate-dev pkg-config scdoc tzdata
# What the tests run besides the build: command → the Debian package that has it.
TEST_NEEDS := openssl:openssl /usr/bin/python3:python3 /lib/systemd/systemd-journald:systemd journalctl:systemd systemd-id128:systemd \
  systemd-nspawn:systemd-container debootstrap:debootstrap nsenter:util-linux tinyproxy:tinyproxy \
  minisign:minisign prometheus-node-exporter:prometheus-node-exporter prometheus:prometheus promtool:prometheus \
  mandoc:mandoc lintian:lintian /usr/bin/strace:strace
# The booted-system suite's Debian trees (debootstrap), kept between runs.
SSVC_TREES ?= /var/tmp/ssvc-trees
# What the benchmark compares ssvcd with.
BENCH_NEEDS := curl:curl jq:jq
# Release builds link the Swift runtime in, with lld: no exported symbols and
# packed relative relocations leave less to load and relocate at start
# (README, "Benchmark figures"). Packed relocations need glibc 2.36.
# Foundation, CoreFoundation and ICU are not linked: dependencies import
# Foundation but call only FoundationEssentials, and linking them anyway
# starts CoreFoundation at every start. A dependency that needs them fails
# to link here rather than costing memory unseen.
NO_AUTOLINK   := Foundation CoreFoundation _FoundationICU FoundationInternationalization
RELEASE_FLAGS := --static-swift-stdlib -Xswiftc -use-ld=lld \
  -Xlinker --no-export-dynamic -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --gc-sections \
  $(foreach library,$(NO_AUTOLINK),-Xswiftc -Xfrontend -Xswiftc -disable-autolink-library -Xswiftc -Xfrontend -Xswiftc $(library))

PREFIX        ?= /usr
DESTDIR       ?=
CONFIGURATION ?= release
# Where the binaries to install are; NO_BUILD=1 installs them as they are.
BIN_DIR       ?= .build/$(CONFIGURATION)
# Units and catalog under one prefix, /usr (merged /usr: /lib is /usr/lib).
UNIT_DIR      ?= /usr/lib/systemd/system
CATALOG_DIR   ?= $(PREFIX)/lib/systemd/catalog
DOC_DIR       ?= $(PREFIX)/share/doc/ssvc

VERSION       := $(shell sed -n 's/.*current = "\(.*\)"/\1/p' Sources/SSVCCore/Support/SSVCVersion.swift)
ARCH          := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_ROOT      ?= $(CURDIR)/.build/deb-root
DEB_FILE      ?= $(CURDIR)/.build/ssvc_$(VERSION)_$(ARCH).deb
# dpkg-deb's compressor: xz for a release; the tests use none.
DEB_COMPRESS  ?= xz

.PHONY: all deps test-deps build binaries man install deb bench test-build test test-busy test-systemd run clean \
  fuzz fuzz-build fuzz-check sanitize

# Installs the Debian packages in $(1) with apt-get, as root or through sudo.
define apt_install
echo "installing:$(1)"; \
sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
$$sudo apt-get update -q && \
DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q --no-install-recommends $(1)
endef

# Installs, with apt_install, the packages of the `command:package` pairs in
# $(1) whose command is missing.
define install_commands
missing=""; \
for need in $(1); do \
  command -v $${need%%:*} >/dev/null 2>&1 || missing="$$missing $${need##*:}"; \
done; \
if [ -n "$$missing" ]; then $(call apt_install,$$missing); fi
endef

all: build

# Runs the command $(1), then says how long it took as part $(2) (README,
# "Tests"), keeping its exit status.
define timed
@echo '$(subst ','\'',$(1))'; started=$$(date +%s); $(1); status=$$?; \
echo "make test: $(2): $$(( $$(date +%s) - started )) s"; exit $$status
endef

# Installs the Debian packages the build needs, once, only when missing.
deps:
	@missing=""; \
	for pkg in $(APT_NEEDS); do \
	  dpkg-query -W -f='$${Status}' $$pkg 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then $(call apt_install,$$missing); fi

# The toml-test suite the TOML parser is judged by (Debian ships it with Go's TOML library).
TOML_TEST := /usr/share/gocode/src/github.com/BurntSushi/toml/internal/toml-test/tests

# The tools the tests use, installed when missing.
test-deps: deps
	@$(call install_commands,$(TEST_NEEDS))
	@[ -d $(TOML_TEST)/valid ] || { $(call apt_install,golang-github-burntsushi-toml-dev); }
	@python3 -c 'import varlink' 2>/dev/null || python3 -m pip install -q varlink 2>/dev/null || \
	  python3 -m pip install -q --break-system-packages varlink
	@# Red Hat's CVSS calculator, the oracle of the CVSS tests (Debian has no package of it).
	@python3 -c 'import cvss' 2>/dev/null || python3 -m pip install -q cvss 2>/dev/null || \
	  python3 -m pip install -q --break-system-packages cvss
	@# Python's packaging 26 or later, the pep440 scheme's oracle; asked for its version, since a bare
	@# `import packaging` here finds this tree's own packaging/ folder.
	@python3 -c 'import packaging, sys; sys.exit(int(packaging.__version__.split(".")[0]) < 26)' 2>/dev/null || \
	  python3 -m pip install -q 'packaging>=26' 2>/dev/null || python3 -m pip install -q --break-system-packages 'packaging>=26'

build: deps
	$(SWIFT) build

# What the tests run on: the debug executables, and the release package the
# booted-system suite installs (about 10 minutes to build the first time on
# 2 cores).
# Each integration test's own time (not its wait for a slot) goes to
# .build/test-times.txt (docs/testing.md).
TEST_RUN := SSVC_BIN_DIR=$(CURDIR)/$(BUILD_DIR) SSVC_DEB=$(DEB_FILE) SSVC_TREES=$(SSVC_TREES) \
  SSVC_TEST_TIMES=$(CURDIR)/.build/test-times.txt $(SWIFT) test --skip-build

# The tests' build is strict: a warning is an error, and a module that
# imports one it does not declare (ssvcctl reaching for the daemon's) fails.
# The package is then built in release with the release flags, so a
# dependency that starts needing Foundation fails here, not on a user's build.
STRICT_FLAGS := -Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error

test-build: test-deps man
	$(call timed,$(SWIFT) build --build-tests $(STRICT_FLAGS),debug build)
	$(call timed,$(MAKE) --no-print-directory deb,release build and package)

# Every test; then the hostile-input suites once more against the release
# binaries the package ships (assertions and traps differ between builds);
# then every fuzz target over its corpus and some new inputs; then the unit
# and daemon tests under AddressSanitizer and ThreadSanitizer.
test: test-build
	@Tests/blocking-calls
	@rm -f .build/test-times.txt
	$(call timed,$(TEST_RUN),the tests)
	$(call timed,SSVC_BIN_DIR=$(CURDIR)/.build/release $(SWIFT) test --skip-build --filter 'NeverWedgeTests|TOMLComparisonTests|StartLimitsTests|urlUserInformation|refusalsBoundedPerUser|specialMirrors|EvaluateAdvisoriesTests|HoldStormTests|HoldLogDaemonTests|stateFieldsAlone|LifecycleIntegrationTests|AdvisoryMemoryTests|AdvisoryWorkTests|StateMemoryTests|MirrorShareTests|invisibleVersion',hostile input on release binaries)
	$(call timed,$(MAKE) --no-print-directory fuzz-check,fuzz-check)
	$(call timed,$(MAKE) --no-print-directory sanitize,sanitize)

# `make test` beside a busy machine: two CPU-bound processes and one of
# nobody's with 32 threads, for as long as it runs (Tests/busy).
test-busy:
	Tests/busy $(MAKE) --no-print-directory test

# The package under systemd as PID 1 (systemd-nspawn --boot), alone.
test-systemd: test-build
	$(TEST_RUN) --filter BootedSystemTests

# ssvcd in the foreground on the demo configuration, with state and socket
# under run/. The demo's servers are the bundled documents in etc/demo/.
run: build
	@mkdir -p $(RUN_DIR)/apps.d
	@sed 's|@DEMO@|$(CURDIR)/etc/demo|g' etc/demo/ssvcd.toml.in > $(RUN_DIR)/ssvcd.toml
	@for file in etc/demo/apps.d/*.toml; do \
	  sed 's|@DEMO@|$(CURDIR)/etc/demo|g' $$file > $(RUN_DIR)/apps.d/$$(basename $$file); \
	done
	$(BUILD_DIR)/ssvcd --config $(RUN_DIR)/ssvcd.toml --log-target stderr

# The binaries in $(CONFIGURATION) mode; release links the Swift runtime
# statically. Only the two that are installed: the benchmark and the fuzz
# tool are built by their own targets.
binaries: deps
	$(SWIFT) build -c $(CONFIGURATION) $(if $(filter release,$(CONFIGURATION)),$(RELEASE_FLAGS)) --product ssvcd
	$(SWIFT) build -c $(CONFIGURATION) $(if $(filter release,$(CONFIGURATION)),$(RELEASE_FLAGS)) --product ssvcctl

# The manual pages, from docs/man/*.scd (scdoc; tidy.awk drops the empty
# paragraphs mandoc -T lint warns of), into $(MAN_DIR).
MAN_DIR   := .build/man
MAN_PAGES := ssvcd.8 ssvcctl.1 ssvcd.toml.5
man: deps
	@mkdir -p $(MAN_DIR)
	@for page in $(MAN_PAGES); do \
	  scdoc < docs/man/$$page.scd | awk -f docs/man/tidy.awk > $(MAN_DIR)/$$page || exit 1; \
	done

# Binaries, units, catalog, configuration and documentation where a Debian
# system expects them, under $(DESTDIR).
install: man $(if $(NO_BUILD),,binaries)
	install -D -m 755 $(BIN_DIR)/ssvcd $(DESTDIR)$(PREFIX)/bin/ssvcd
	install -D -m 755 $(BIN_DIR)/ssvcctl $(DESTDIR)$(PREFIX)/bin/ssvcctl
	install -d -m 755 $(DESTDIR)$(UNIT_DIR)
	sed 's|/usr/bin/ssvc|$(PREFIX)/bin/ssvc|g' systemd/ssvcd.service > $(DESTDIR)$(UNIT_DIR)/ssvcd.service
	chmod 644 $(DESTDIR)$(UNIT_DIR)/ssvcd.service
	install -D -m 644 systemd/ssvcd.socket $(DESTDIR)$(UNIT_DIR)/ssvcd.socket
	install -D -m 644 systemd/ssvcd.catalog $(DESTDIR)$(CATALOG_DIR)/ssvcd.catalog
	install -D -m 644 etc/ssvcd.toml $(DESTDIR)/etc/ssvc/ssvcd.toml
	install -d -m 755 $(DESTDIR)/etc/ssvc/apps.d
	install -d -m 755 $(DESTDIR)/etc/ssvc/hooks.d
	install -D -m 755 packaging/update-motd.d/85-ssvc $(DESTDIR)/etc/update-motd.d/85-ssvc
	install -D -m 644 etc/apps.d/example.toml $(DESTDIR)$(DOC_DIR)/examples/apps.d/example.toml
	install -D -m 644 etc/prometheus/ssvc.rules.yml $(DESTDIR)$(PREFIX)/share/ssvc/prometheus/ssvc.rules.yml
	install -d -m 755 $(DESTDIR)$(DOC_DIR)/docs
	gzip -9n < README.md > $(DESTDIR)$(DOC_DIR)/README.md.gz
	for doc in docs/*.md; do gzip -9n < $$doc > $(DESTDIR)$(DOC_DIR)/$$doc.gz; done
	chmod 644 $(DESTDIR)$(DOC_DIR)/README.md.gz $(DESTDIR)$(DOC_DIR)/docs/*.md.gz
	install -D -m 644 packaging/deb/copyright $(DESTDIR)$(DOC_DIR)/copyright
	gzip -9n < packaging/deb/changelog > $(DESTDIR)$(DOC_DIR)/changelog.gz
	chmod 644 $(DESTDIR)$(DOC_DIR)/changelog.gz
	install -D -m 644 packaging/deb/lintian-overrides $(DESTDIR)$(PREFIX)/share/lintian/overrides/ssvc
	install -d -m 755 $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(BIN_DIR)/ssvcctl --generate-completion-script bash | sed '1{/^#!/d}' > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ssvcctl
	$(BIN_DIR)/ssvcctl --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_ssvcctl
	$(BIN_DIR)/ssvcctl --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/ssvcctl.fish
	chmod 644 $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ssvcctl $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_ssvcctl \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/ssvcctl.fish
	for page in $(MAN_PAGES); do \
	  section=$${page##*.}; \
	  install -d -m 755 $(DESTDIR)$(PREFIX)/share/man/man$$section; \
	  gzip -9n < $(MAN_DIR)/$$page > $(DESTDIR)$(PREFIX)/share/man/man$$section/$$page.gz; \
	  chmod 644 $(DESTDIR)$(PREFIX)/share/man/man$$section/$$page.gz; \
	done

# An installable Debian package of the same files (release binaries by
# default; NO_BUILD=1 BIN_DIR=… packages binaries as they are).
deb: $(if $(NO_BUILD),,binaries)
	rm -rf $(DEB_ROOT)
	$(MAKE) --no-print-directory install NO_BUILD=1 BIN_DIR=$(BIN_DIR) DESTDIR=$(DEB_ROOT) PREFIX=/usr
	-strip --strip-unneeded $(DEB_ROOT)/usr/bin/ssvcd $(DEB_ROOT)/usr/bin/ssvcctl
	install -d -m 755 $(DEB_ROOT)/DEBIAN
	sed -e 's/@VERSION@/$(VERSION)/' -e 's/@ARCH@/$(ARCH)/' packaging/deb/control > $(DEB_ROOT)/DEBIAN/control
	install -m 644 packaging/deb/conffiles $(DEB_ROOT)/DEBIAN/conffiles
	install -m 755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm $(DEB_ROOT)/DEBIAN/
	dpkg-deb --root-owner-group -Z$(DEB_COMPRESS) --build $(DEB_ROOT) $(DEB_FILE)

# Benchmark figures from release binaries, one line each with the machine
# and the method: the fleet simulation, the daemon's (about 3 minutes), then an
# export's pass beside Python's (1 minute; making the two exports takes 3 more once).
bench: deps
	@$(call install_commands,$(BENCH_NEEDS))
	$(SWIFT) build -c release $(RELEASE_FLAGS)
	.build/release/ssvc-bench fleet
	.build/release/ssvc-bench fleet --phased
	.build/release/ssvc-bench fleet --phased --schedule hourly
	.build/release/ssvc-bench daemon --ssvcd .build/release/ssvcd
	@# An OSV export's pass beside Python's zipfile + json on the same file:
	@# 200 MB of deflated records, then about 1 GB inflated (made once, kept).
	@[ -f .build/osv-200.zip ] || python3 Tests/Fixtures/osv_export.py 200 .build/osv-200.zip --package requests
	.build/release/ssvc-bench archive .build/osv-200.zip --ecosystem PyPI --package requests --version 1.0 --python Tests/Fixtures/osv_filter.py
	@[ -f .build/osv-1g.zip ] || python3 Tests/Fixtures/osv_export.py 520 .build/osv-1g.zip --package requests
	.build/release/ssvc-bench archive .build/osv-1g.zip --ecosystem PyPI --package requests --version 1.0 --python Tests/Fixtures/osv_filter.py

# libFuzzer over every parser of outside input (docs/testing.md): each
# target for FUZZ_SECONDS from its corpus in Fuzz/corpus, learning into
# .build/fuzz-corpus; a crash's input goes to .build/fuzz-artifacts.
FUZZ_SECONDS ?= 60
# What make test runs: each corpus plus this many new inputs per target.
FUZZ_RUNS    ?= 5000
FUZZ_TARGETS := json ssvc turkcell itunes github pointers rules minisign varlink state times proxy dpkg versions pep440 config toml zip cvss osv
# One AddressSanitizer build serves the fuzz targets and the sanitized
# tests, in .build/asan: this package's libraries carry libFuzzer's coverage
# instrumentation (what -sanitize=fuzzer adds), and only ssvc-fuzz links
# libFuzzer (Package.swift, SSVC_SANITIZING=address). Built once, it saves
# make test a whole build of every dependency.
ASAN_BUILD := SSVC_SANITIZING=address $(SWIFT) build --build-path .build/asan --sanitize=address -Xswiftc -DFUZZING
FUZZ_BIN   := .build/asan/debug/ssvc-fuzz

fuzz-build: deps
	$(ASAN_BUILD) --product ssvc-fuzz

fuzz: fuzz-build
	@Fuzz/run $(FUZZ_BIN) $(FUZZ_SECONDS) time $(FUZZ_TARGETS)

# Targets are independent and each uses one core: one per core at a time.
fuzz-check: fuzz-build
	@printf '%s\n' $(FUZZ_TARGETS) | xargs -P "$$(nproc)" -n 1 Fuzz/run $(FUZZ_BIN) $(FUZZ_RUNS) runs

# The unit and daemon tests (no executables started) under AddressSanitizer
# (in the fuzz build), then ThreadSanitizer, in a build of its own; any
# report fails. Suppressions, each with its reason, are in Tests/Sanitizers.
SANITIZED_TESTS := SSVCCoreTests|SSVCPosixTests|SSVCSigningTests|SSVCArchiveTests|SSVCControlTests|SSVCSystemdTests|SSVCDaemonTests|BenchTests
# The fleet simulations are single-threaded arithmetic over plain arrays,
# with nothing for either sanitizer to find, and a hundred CPU seconds
# under ThreadSanitizer: they run in the ordinary tests only.
UNSANITIZED_TESTS := FleetSimulationTests|PhasedFleetSimulationTests
# ThreadSanitizer looks for races; these tests run one thread over large
# inputs (patterns, TOML, zip archives, a 75 MiB state file), have none to
# find, and cost it minutes of CPU when they run side by side: they run
# in the ordinary tests and under AddressSanitizer.
ONE_THREAD_TESTS := LinearPatternLinearTimeTests|LinearPatternBehaviourTests/largeText|TOMLLimitTests|JSONParserTests/whitespaceOnly
ONE_THREAD_FILE_TESTS := AdvisoryFilesTests/manyRecords|ZipArchiveTests/agreesWithZipfile|ZipArchiveTests/zip64|StateStoreTests/pastTheLimit
THREAD_UNSANITIZED_TESTS := $(UNSANITIZED_TESTS)|$(ONE_THREAD_TESTS)|$(ONE_THREAD_FILE_TESTS)
sanitize: deps
	$(ASAN_BUILD) --build-tests
	SSVC_SANITIZING=address ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Sanitizers/lsan.supp \
	  $(SWIFT) test --skip-build --build-path .build/asan --sanitize=address --filter '$(SANITIZED_TESTS)' --skip '$(UNSANITIZED_TESTS)'
	SSVC_SANITIZING=thread $(SWIFT) build --build-tests --build-path .build/tsan --sanitize=thread
	SSVC_SANITIZING=thread TSAN_OPTIONS=halt_on_error=1:suppressions=$(CURDIR)/Tests/Sanitizers/tsan.supp \
	  $(SWIFT) test --skip-build --build-path .build/tsan --sanitize=thread --filter '$(SANITIZED_TESTS)' --skip '$(THREAD_UNSANITIZED_TESTS)'

clean:
	rm -rf .build $(RUN_DIR)
