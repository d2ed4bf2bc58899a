# Set-up and entry points. `make reproduce` is the main job, `make test` the test suite.
# Both install what they need first (Debian packages for offscreen rendering and the
# headless browser when run as root or with sudo; the Python package with pip).

PYTHON ?= python3
PIP := $(PYTHON) -m pip
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SYSTEM_PACKAGES := libegl1 libegl-mesa0 libgl1 libopengl0 libgl1-mesa-dri chromium

.PHONY: system-deps install reproduce test

system-deps:
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(SYSTEM_PACKAGES)

install: system-deps
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[dev,reacher]'

reproduce: install
	MUJOCO_GL=egl lejepa-wm reproduce --scale quick

test: install
	MUJOCO_GL=egl $(PYTHON) -m pytest
