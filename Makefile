# tavern-core: `make demo` runs the demo, `make test` runs every test.
SHELL := /bin/bash
GO ?= go
GOROOT := $(shell $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm/go_js_wasm_exec
JS := js
WASM := $(JS)/tavern-core.wasm
HOST_WASM := $(JS)/tavern-host.wasm
WASMFLAGS := -trimpath -ldflags="-s -w"
# Both modules run Go's classic collector, not Go 1.26's default Green Tea:
# one thread gains nothing from its span-local marking, and the page's
# module is 11.5 KB smaller brotli (45 KB raw) with it off. Cachegrind under
# Node: the processor chain 1.13 -> 0.95 M instructions per message, a
# sweep step the same (docs/architecture.md, "Fifteenth round").
GOWASM_ENV := GOOS=js GOARCH=wasm GOEXPERIMENT=nogreenteagc
# The page's module keeps inlining where speed is Go's (editor ops) and
# drops it where a page pays for the bytes and the time is the DOM's (the
# chat surface, the widget, the edges): 36 KB less brotli
# (docs/architecture.md, "Size"). The bridge (the codec, the call edges)
# too: 2.6 KB less; the takeover handle kernel: 2.2 KB less. The takeover
# and chain benches showed no difference beyond noise for either. The error
# constructors (apierr, cold by definition): 0.7 KB less; the chat surface's
# DOM edge (one call per batch): 2 KB less.
BROWSER_GCFLAGS := -gcflags='tavern-core/chatsurface/...=-l' -gcflags='tavern-core/msgeditor/...=-l' \
	-gcflags='tavern-core/wasm/browser=-l' -gcflags='tavern-core/protocol=-l' -gcflags='tavern-core/bridge=-l' \
	-gcflags='tavern-core/takeover=-l' -gcflags='tavern-core/apierr=-l' 
GO_SOURCES := $(shell find . -name '*.go' -not -path './js/node_modules/*') go.mod go.sum
# Go frames live on V8's stack: raise the limit so deep recursion throws
# instead of segfaulting Node (docs/architecture.md).
STACK := ulimit -s 65536 2>/dev/null || ulimit -s unlimited 2>/dev/null || true

.PHONY: pack all build heap-probe wasm browser host-wasm dsh-plugin node_modules test test-go test-wasm test-js test-e2e test-sillytavern test-sillytavern-if-present sillytavern test-dsh vet bench bench-sillytavern size demo demo-port fuzz clean

all: build

build: wasm

wasm: $(WASM) $(JS)/wasm_exec.js

# Sign-extension operators (WebAssembly 2.0: every browser since 2021, Node
# 12+) stand for shift pairs Go emits otherwise: 1.6 KB less brotli.
$(WASM): $(GO_SOURCES)
	$(GOWASM_ENV) GOWASM=signext $(GO) build $(WASMFLAGS) $(BROWSER_GCFLAGS) -o $@ ./wasm/browser

# The harness host's module (Node only): session log + editor route.
host-wasm: $(HOST_WASM) $(JS)/wasm_exec.js

$(HOST_WASM): $(GO_SOURCES)
	$(GOWASM_ENV) $(GO) build $(WASMFLAGS) -o $@ ./wasm/host

$(JS)/wasm_exec.js: $(GOROOT)/lib/wasm/wasm_exec.js
	cp $< $@

# The browser build (js/browser-build.js, esbuild): the public entry modules
# and the one module they share, with the .wasm beside them. The demo pages
# and the Chromium bench load it from js/dist/; the SillyTavern extension
# ships it as lib/. Always rebuilt (well under a second), so it never lags
# behind js/.
BROWSER_DIST := $(JS)/dist
browser: wasm node_modules
	rm -rf $(BROWSER_DIST)
	node $(JS)/browser-build.js $(BROWSER_DIST)

# The DeepSeek Harness plugin package (dsh-plugin/): host half, browser half
# and the tavern-core runtime they load, ready for `dsh plugin add`.
DSH_PLUGIN := dist/dsh-plugin
dsh-plugin: wasm host-wasm
	rm -rf $(DSH_PLUGIN)
	mkdir -p $(DSH_PLUGIN)/lib
	cp dsh-plugin/package.json dsh-plugin/cordis.patch.yml dsh-plugin/host.js dsh-plugin/client.js \
		dsh-plugin/browser.js LICENSE $(DSH_PLUGIN)/
	node docs/bundle.mjs dsh-plugin $(DSH_PLUGIN)
	cp $(sort $(filter-out $(JS)/pack.js $(JS)/browser-build.js,$(wildcard $(JS)/*.js)) $(JS)/wasm_exec.js) $(WASM) $(HOST_WASM) $(JS)/package.json $(DSH_PLUGIN)/lib/

node_modules: $(JS)/node_modules/.package-lock.json

$(JS)/node_modules/.package-lock.json: $(JS)/package.json $(JS)/package-lock.json
	cd $(JS) && npm ci --no-audit --no-fund
	touch $@

# staticcheck, built once per version into a shared cache (the module
# proxy serves it; `go run pkg@v` cannot build for the host while GOOS=js).
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(HOME)/.cache/tavern-core/bin/staticcheck-$(STATICCHECK_VERSION)
JS_PKGS := ./bridge/... ./wasm/... ./chatsurface/domjs/... ./msgeditor/domjs/...

$(STATICCHECK):
	mkdir -p $(dir $@)
	GOBIN=$(dir $@)tmp-$$$$ GOOS= GOARCH= $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) && \
		mv $(dir $@)tmp-$$$$/staticcheck $@ && rmdir $(dir $@)tmp-$$$$

vet: $(STATICCHECK)
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './js/node_modules/*'))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt wants to change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet $(JS_PKGS)
	$(STATICCHECK) ./...
	# U1000 cannot see //go:wasmexport callers: off for the js/wasm pass.
	GOOS=js GOARCH=wasm $(STATICCHECK) -checks=inherit,-U1000 $(JS_PKGS)

test-go:
	$(GO) test ./...

test-wasm:
	$(STACK); $(GOWASM_ENV) $(GO) test -exec "$(WASM_EXEC)" ./bridge/...

# Progress as tests finish (js/test/progress-reporter.js): one line per
# test, a note while a slow one runs, "<suite>: N passed, N failed" last.
NODE_TEST := node --test --test-concurrency=1 --test-reporter=./test/progress-reporter.js

test-js: wasm host-wasm heap-probe node_modules
	$(STACK); cd $(JS) && TEST_LABEL=js $(NODE_TEST) test/*.test.js

# The browser module with tc_heap (-tags heapprobe), for the heap-level leak
# test only: a page's module does without ReadMemStats.
heap-probe: $(JS)/.heap-probe.wasm
$(JS)/.heap-probe.wasm: $(GO_SOURCES)
	$(GOWASM_ENV) GOWASM=signext $(GO) build $(WASMFLAGS) $(BROWSER_GCFLAGS) -tags heapprobe -o $@ ./wasm/browser

test-e2e: browser host-wasm node_modules
	$(STACK); cd $(JS) && TEST_LABEL=e2e $(NODE_TEST) e2e/*.test.js

# The SillyTavern extension: copy dist/sillytavern/tavern-core/ to
# data/<user>/extensions/tavern-core/ (README "Use it in SillyTavern").
ST_DIST := dist/sillytavern/tavern-core
ST_EXT := $(wildcard sillytavern/*.js) sillytavern/style.css
# The optional example participant (a second extension: copy it to
# data/<user>/extensions/html-runtime/).
ST_EXAMPLE := dist/sillytavern/html-runtime

# Always reassembled (a copy, well under a second), so the folder never
# lags behind js/ or sillytavern/.
sillytavern: wasm node_modules
	rm -rf $(ST_DIST)
	mkdir -p $(ST_DIST)
	cp $(ST_EXT) $(ST_DIST)/
	node docs/bundle.mjs sillytavern $(ST_DIST)
	mkdir -p $(ST_DIST)/managed
	cp sillytavern/managed/*.js $(ST_DIST)/managed/
	node $(JS)/browser-build.js $(ST_DIST)/lib
	cp sillytavern/manifest.json $(ST_DIST)/manifest.json
	rm -rf $(ST_EXAMPLE)
	cp -r sillytavern/examples/html-runtime $(ST_EXAMPLE)

# The real-frontend suite (js/e2e/sillytavern/): SillyTavern 1.18.0 from
# ../shared/vendor or ST_TARBALL=…, cached per tarball hash under
# ~/.cache/tavern-core/. SILLYTAVERN=required (CI) makes a missing tarball
# an error instead of a skip.
ST_TARBALL ?= $(wildcard ../shared/vendor/SillyTavern-1.18.0.tar.gz)

test-sillytavern: sillytavern node_modules
	@test -n "$(strip $(ST_TARBALL))" || { echo "test-sillytavern: no SillyTavern tarball: put SillyTavern-1.18.0.tar.gz in ../shared/vendor/ or set ST_TARBALL=…"; exit 1; }
	$(STACK); cd $(JS) && ST_TARBALL="$(abspath $(ST_TARBALL))" TEST_LABEL=sillytavern $(NODE_TEST) e2e/sillytavern/*.test.js

test-sillytavern-if-present:
ifeq ($(strip $(ST_TARBALL)),)
ifeq ($(SILLYTAVERN),required)
	@echo "test-sillytavern: SILLYTAVERN=required but there is no ../shared/vendor/SillyTavern-1.18.0.tar.gz and no ST_TARBALL"; exit 1
else
	@echo "test-sillytavern: skipped: no ../shared/vendor/SillyTavern-1.18.0.tar.gz and no ST_TARBALL=… (the real-frontend suite needs the SillyTavern 1.18.0 tarball)"
endif
else
	@$(MAKE) --no-print-directory test-sillytavern
endif

# The plugin inside the real DeepSeek Harness (js/e2e/dsh/): the harness is
# built once from ../shared/vendor into a cache keyed by the tarball's
# sha256, then its own web UI is driven in Chromium. Without the tarball it
# is skipped with one line; DSH_E2E=required (CI) makes that an error.
test-dsh: dsh-plugin node_modules
	$(STACK); NODE_TEST="$(NODE_TEST)" js/e2e/dsh/run.sh

# Every suite (docs/testing.md); the browser part needs Debian's chromium
# (E2E=required turns its absence into a failure, as CI does), the
# real-frontend parts the SillyTavern and DeepSeek Harness tarballs.
test: vet test-go test-wasm test-js test-e2e test-sillytavern-if-present test-dsh

bench: browser host-wasm node_modules
	$(STACK); cd $(JS) && node --expose-gc bench/run.js
	$(STACK); cd $(JS) && node --expose-gc bench/chat-surface.js
	$(STACK); cd $(JS) && node bench/chromium.js
	$(STACK); cd $(JS) && node --expose-gc bench/session-log.js
	$(MAKE) --no-print-directory bench-sillytavern

# Managed mode against vanilla SillyTavern, in the real frontend (needs the
# tarball; one line says it was skipped otherwise).
bench-sillytavern: sillytavern node_modules
	$(STACK); cd $(JS) && ST_TARBALL="$(abspath $(ST_TARBALL))" node --expose-gc bench/sillytavern-managed.js

size: wasm
	@$(GOWASM_ENV) GOWASM=signext $(GO) build -trimpath $(BROWSER_GCFLAGS) -o $(JS)/.size-symbols.wasm ./wasm/browser
	@node $(JS)/bench/size.js $(WASM) $(JS)/.size-symbols.wasm; rm -f $(JS)/.size-symbols.wasm

# The npm tarballs: tavern-core (browsers and Node) and tavern-core-host
# (Node only), in dist/npm/.
pack: wasm host-wasm
	cd $(JS) && node pack.js ../dist/npm

demo: demo-port browser host-wasm node_modules
	cd $(JS) && node demo/server.js

# A bad or busy PORT stops `make demo` before it rebuilds the files a
# running demo serves (js/demo/port.js).
demo-port:
	@node $(JS)/demo/port.js

# Every fuzz target in turn, FUZZTIME each (make fuzz FUZZTIME=5m): the
# list is found in the sources, so a new target is never skipped. Their
# corpora are committed under each package's testdata/fuzz/.
FUZZTIME ?= 30s
FUZZ_TARGETS = $(shell grep -rHoE --include='*_test.go' --exclude-dir=node_modules '^func Fuzz[A-Za-z0-9_]*[(][a-z]+ [*]testing[.]F[)]' . | \
	sed -E 's|^[.]/(.*)/[^/]*:func (Fuzz[A-Za-z0-9_]*).*|\1:\2|' | sort)
fuzz:
	@set -e; targets="$(FUZZ_TARGETS)"; echo "fuzz: $$(echo $$targets | wc -w) targets, $(FUZZTIME) each"; \
	for t in $$targets; do \
		pkg=$${t%%:*}; fn=$${t##*:}; echo "== $$fn ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$fn\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=3s ./$$pkg/; \
	done

clean:
	rm -f $(WASM) $(HOST_WASM) $(JS)/wasm_exec.js $(JS)/.heap-probe.wasm
	rm -rf $(BROWSER_DIST)
	rm -rf dist
