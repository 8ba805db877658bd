##===----------------------------------------------------------------------===##
##
## This source file is part of the Kiln open source project
##
## Copyright (c) 2026 the Kiln project authors
## Licensed under Apache License v2.0
##
## See LICENSE for license information
##
## SPDX-License-Identifier: Apache-2.0
##
##===----------------------------------------------------------------------===##
# Kiln: `make run` serves the example bots; `make test` runs every test. Both install what they need.

SWIFT ?= swift
# Debian packages the build and the tests need (installed by `make deps` when missing).
DEBIAN_PACKAGES := git pkg-config ca-certificates systemd libgit2-dev libsqlite3-dev libcurl4-openssl-dev python3-aiosmtpd bubblewrap openssh-server postgresql pgbouncer iproute2 util-linux \
	shellcheck yamllint flake8 python3-flake8-import-order zstd \
	chromium chromium-driver python3-selenium python3-pip fonts-dejavu-core diff-cover gdb

.PHONY: all deps build lint test test-reliability run bench screenshots clean

all: build

deps:
	@scripts/install-debian-packages $(DEBIAN_PACKAGES)
	@scripts/install-python-packages

build: deps
	$(SWIFT) build

# swift-format (in the toolchain) with the repository's .swift-format: any finding fails. A failure
# dropped without a word is refused too (scripts/lint-quiet-failures): every `try? await`, and every
# `try?` on a write or a removal, says why on its line or the one above, or goes through
# `Logger.bestEffort` (make bench's own code is exempt).
lint:
	$(SWIFT) format lint --strict --recursive --parallel Sources Tests Package.swift
	scripts/lint-quiet-failures
	scripts/lint-clock-reads

# Lints, builds the product and the tests once, then runs every suite: four tests at a time, and
# beside them, ahead of them, one at a time, those that would otherwise end the run alone when
# Swift Testing's order starts them late: package-benchmark's (its debug and release builds of
# package-benchmark take 220 s alone), the one that waits out a 40 s timeout, and the several
# hosts' suite, whose tests run one after another (the run's last 45 s, mostly idle, when it
# started late). Then the many-hosts suite alone: its dozen servers and busy loops take every core
# on purpose, which would starve the servers of the suites beside it. scripts/run-tests bounds
# each run's time and names the tests still running when a run fails.
test: deps lint
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) scripts/run-tests --first 'BenchmarkTests|crashAndHang|SeveralHostsTests' --skip ManyHostsTests
	SWIFT=$(SWIFT) scripts/run-tests --filter ManyHostsTests

# Builds and starts `kiln serve` on the example bots in Bots/, data in .kiln/, on 127.0.0.1:8080.
run: build
	mkdir -p .kiln
	.build/debug/kiln serve --bots Bots --data .kiln --listen 127.0.0.1:8080

# The reliability suite at full size (make test runs it smaller): a server stopped with SIGKILL
# mid-integration, hostile builds, and 10,000 fuzzed bot files and webhooks per endpoint.
test-reliability: deps
	$(SWIFT) build --build-tests
	KILN_RELIABILITY_FULL=1 $(SWIFT) test --skip-build --disable-xctest \
		--filter 'KillRecoveryTests|HostileBuildTests|BotFileFuzzTests|WebhookFuzzTests|LoadTests|outage|permanentRefusal'

# Prints the table of performance figures, measured on this machine with a release build (built
# as README's installation builds it).
bench: deps
	scripts/install-debian-packages wrk python3-aiosmtpd linux-perf
	$(SWIFT) build -c release --static-swift-stdlib --product kiln
	$(SWIFT) build -c release --static-swift-stdlib --product kiln-bench
	.build/release/kiln-bench --kiln .build/release/kiln

# Opens every page of a real server in headless Chromium; PNGs go to screenshots/.
screenshots: build
	scripts/install-debian-packages chromium curl
	scripts/screenshots screenshots

clean:
	rm -rf .build .kiln
