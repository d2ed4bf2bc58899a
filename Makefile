# Set-up and entry points. `make reproduce` is the main job (verify, every quick experiment,
# the report), `make test` the test suite. Both first make what they need, once each:
#
#   1. a virtual environment in $(VENV), so any Python >= 3.11 works (Debian's included:
#      no --break-system-packages); Debian/Ubuntu need the python3-venv package for it;
#   2. the Debian packages for offscreen rendering (SYSTEM_PACKAGES) and, for the tests,
#      Chromium (the report's browser test; TEST_SYSTEM_PACKAGES), when run as root or
#      with sudo; elsewhere install their equivalents yourself;
#   3. torch ($(TORCH)), then the package itself (editable, extras $(EXTRAS)).
#
# Each step leaves a stamp file in $(VENV) (the Python one named after a checksum of
# pyproject.toml), so a second call installs nothing, and prints one line; a step that
# fails prints the output it hid, and make stops.
#
# Variables (`make VAR=value TARGET`):
#   PYTHON          the interpreter the environment is made from (default: python3)
#   VENV            where the environment lives (default: .venv)
#   TORCH_INDEX     auto (default): torch from pip's configured index, unless that would be a
#                   CUDA build (PyPI's Linux wheel, whose requirements pull several GB of
#                   nvidia-* packages); then the CPU build from $(TORCH_CPU_INDEX).
#                   `default`: whatever pip picks (CUDA on Linux, for `--device cuda`).
#                   Or any index URL. A torch already in $(VENV) is kept.
#   REPRODUCE_ARGS  extra options of `lejepa-wm reproduce` (e.g. --strict, --fresh)

PYTHON ?= python3
VENV ?= .venv
TORCH ?= torch==2.13.0
TORCH_INDEX ?= auto
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
EXTRAS ?= dev,reacher
SYSTEM_PACKAGES ?= libegl1 libegl-mesa0 libgl1 libopengl0 libgl1-mesa-dri
TEST_SYSTEM_PACKAGES ?= chromium
REPRODUCE_ARGS ?=

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PIP_NO_INPUT := 1
export DEBIAN_FRONTEND := noninteractive

VENV_PY := $(VENV)/bin/python
VENV_PIP := $(VENV_PY) -m pip
TORCH_FOUND := import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)
TORCH_VERSION := from importlib.metadata import version; print(version('torch'))
checksum = $(firstword $(shell printf '%s\n' $(1) | cksum))
PYTHON_STAMP := $(VENV)/.installed-$(firstword $(shell { cat pyproject.toml; echo '$(TORCH) $(EXTRAS)'; } | cksum))
SYSTEM_STAMP := $(VENV)/.system-$(call checksum,$(SYSTEM_PACKAGES))
TEST_SYSTEM_STAMP := $(VENV)/.system-test-$(call checksum,$(TEST_SYSTEM_PACKAGES))
# Root runs apt-get itself; others through sudo when there is one.
SUDO := $(shell [ "$$(id -u)" = 0 ] || { command -v sudo >/dev/null && echo sudo; } || echo none)

# $(call quietly,WHAT,COMMAND): run COMMAND with its output kept aside; on failure show it and stop.
# (COMMAND must not contain a comma.)
define quietly
log=$$(mktemp); if ! { $(2); } >"$$log" 2>&1; then echo "FAILED: $(1); its output:" >&2; cat "$$log" >&2; rm -f "$$log"; exit 1; fi; rm -f "$$log"
endef

# $(call apt_install,PACKAGES,STAMP,REQUIRED,PURPOSE): install the missing Debian packages, then touch STAMP.
# REQUIRED=yes: a failed install stops make; otherwise it is a warning (the tests that need them skip).
define apt_install
@if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then \
  echo "system packages: not Debian/Ubuntu; install the equivalents of: $(1)"; touch $(2); exit 0; fi; \
missing=$$(for p in $(1); do [ "$$(dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null)" = "install ok installed" ] \
  || echo "$$p"; done | xargs); \
if [ -z "$$missing" ]; then echo "system packages: present ($(1); $(4))"; touch $(2); exit 0; fi; \
if [ "$(SUDO)" = none ]; then \
  echo "warning: missing Debian packages: $$missing (not root and no sudo: install them with" \
       "'apt-get install -y $$missing' as root)"; exit 0; fi; \
sudo=$(filter sudo,$(SUDO)); echo "system packages: installing $$missing ($(4)) ..."; \
if ( $$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
     --no-install-recommends $$missing ) >$(VENV)/apt.log 2>&1; then \
  rm -f $(VENV)/apt.log; touch $(2); \
elif [ "$(3)" = yes ]; then \
  echo "FAILED: apt-get install $$missing; its output:" >&2; cat $(VENV)/apt.log >&2; exit 1; \
else \
  echo "warning: could not install $$missing (see $(VENV)/apt.log); the tests that need it are skipped." \
       "To retry: rm $(2)"; touch $(2); fi
endef

.PHONY: install system-deps reproduce test clean-venv

install: $(PYTHON_STAMP) $(SYSTEM_STAMP)

system-deps: $(SYSTEM_STAMP)

reproduce: install
	MUJOCO_GL=egl $(VENV)/bin/lejepa-wm reproduce --scale quick $(REPRODUCE_ARGS)

test: install $(TEST_SYSTEM_STAMP)
	MUJOCO_GL=egl $(VENV_PY) -m pytest

clean-venv:
	rm -rf $(VENV)

$(VENV_PY):
	@command -v $(PYTHON) >/dev/null || { echo "FAILED: no $(PYTHON) on PATH (make PYTHON=/path/to/python3.11)" >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "FAILED: $(PYTHON) is" \
	  "$$($(PYTHON) -V 2>&1); lejepa-wm needs Python >= 3.11 (make PYTHON=python3.11)" >&2; exit 1; }
	@echo "venv: creating $(VENV) with $$($(PYTHON) -V 2>&1)"
	@if ! $(PYTHON) -m venv $(VENV) >/dev/null 2>&1; then \
	  rm -rf $(VENV); \
	  if command -v apt-get >/dev/null && [ "$(SUDO)" != none ] && [ "$$(command -v $(PYTHON))" = /usr/bin/python3 ]; then \
	    echo "venv: $(PYTHON) -m venv needs Debian's python3-venv; installing it ..."; \
	    sudo=$(filter sudo,$(SUDO)); \
	    $(call quietly,apt-get install python3-venv,$$sudo apt-get update -qq && $$sudo env \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv); \
	  fi; \
	  $(call quietly,$(PYTHON) -m venv $(VENV) (on Debian/Ubuntu: apt-get install python3-venv),\
	    $(PYTHON) -m venv $(VENV)); \
	fi

$(SYSTEM_STAMP): | $(VENV_PY)
	$(call apt_install,$(SYSTEM_PACKAGES),$@,yes,offscreen rendering for reacher)

$(TEST_SYSTEM_STAMP): | $(VENV_PY)
	$(call apt_install,$(TEST_SYSTEM_PACKAGES),$@,no,the report's browser test)

$(PYTHON_STAMP): | $(VENV_PY)
	@if $(VENV_PY) -c "$(TORCH_FOUND)"; then \
	  echo "torch: $$($(VENV_PY) -c "$(TORCH_VERSION)") already installed"; \
	else \
	  index="$(TORCH_INDEX)"; \
	  if [ "$$index" = auto ]; then \
	    index=default; \
	    report=$$($(VENV_PIP) install --dry-run --no-deps --quiet --report - '$(TORCH)' 2>/dev/null || true); \
	    if grep -q '^ *"nvidia-' <<<"$$report"; then index=$(TORCH_CPU_INDEX); fi; \
	  fi; \
	  args=; where="pip's configured index"; \
	  if [ "$$index" != default ]; then args="--index-url $$index"; where=$$index; fi; \
	  echo "torch: installing $(TORCH) from $$where (a minute or more) ..."; \
	  $(call quietly,pip install $(TORCH) from $$where (TORCH_INDEX chooses the index),$(VENV_PIP) install $$args '$(TORCH)'); \
	  echo "torch: $$($(VENV_PY) -c "$(TORCH_VERSION)") installed"; \
	fi
	@echo "python packages: installing lejepa-wm (editable) with [$(EXTRAS)] ..."
	@$(call quietly,pip install -e .[$(EXTRAS)],$(VENV_PIP) install -e '.[$(EXTRAS)]')
	@rm -f $(VENV)/.installed-*; touch $@
	@echo "python packages: done; $(VENV)/bin/lejepa-wm is ready"
