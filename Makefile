# tabd — the two commands: `make run` and `make test`.
# Both install what a fresh Debian machine lacks (apt) before building.

SWIFT      ?= swift
CONFIG     ?= debug
BUILD_DIR  := .build/$(CONFIG)
RUN_DIR    := $(CURDIR)/run
PREFIX     ?= /usr/local
DESTDIR    ?=

# Debian packages the build, the tests and `make run` need (command or header -> package).
APT_PACKAGES := libevent-dev socat netcat-openbsd pkg-config openssl libcrypt-dev

.PHONY: all build test run deps bench clean

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
	if [ -n "$$missing" ]; then \
		echo "make: installing$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIG)

test: deps
	$(SWIFT) build
	$(SWIFT) test

# Starts tabd in the foreground: socket ./run/tabd.sock, state ./run/state, the reference
# plugins loaded (login gate with user demo / password demo, orientation rules).
run: build
	@mkdir -p $(RUN_DIR)/state
	@[ -f $(RUN_DIR)/credentials ] || { printf 'demo:%s\n' "$$(openssl passwd -6 demo)" > $(RUN_DIR)/credentials; chmod 600 $(RUN_DIR)/credentials; }
	@echo "tabd: socket $(RUN_DIR)/tabd.sock, state $(RUN_DIR)/state; Ctrl-C stops it"
	exec $(BUILD_DIR)/tabd --config config/run.yaml

clean:
	rm -rf .build run
