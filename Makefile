# polsim — every target sets itself up on a machine that has only python3 and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test test-slow bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

## run: the main job on the embedded default (local Ray), prints its summary
run: $(STAMP)
	$(BIN)/polsim simulate --game polarity --variant standard --set stack_size=8 --set foundations=3 --strategies cautious,aggressive --games 40 --seed 7 --out runs/ --overwrite

## test: the whole default suite, in two processes (a test file stays in one: its module fixtures start once)
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

## test-slow: the long tests kept out of the default run
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

## bench: speed and memory figures (see README)
bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) runs build *.egg-info
