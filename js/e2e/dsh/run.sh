#!/usr/bin/env bash
# make test-dsh: the plugin inside the real DeepSeek Harness. Needs the
# vendored tarball (../shared/vendor beside the clone); without it the suite
# is skipped and says so, unless DSH_E2E=required (CI), which fails instead.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
tarball="${DSH_TARBALL:-$repo/../shared/vendor/deepseek-harness-0.1.1-rc.2.tar.gz}"

if [ ! -f "$tarball" ]; then
  if [ "${DSH_E2E:-}" = required ]; then
    echo "test-dsh: FAILED: DSH_E2E=required but there is no DeepSeek Harness tarball at $tarball" >&2
    exit 1
  fi
  echo "test-dsh: skipped: no DeepSeek Harness tarball at $tarball (the real-harness suite needs ../shared/vendor/deepseek-harness-0.1.1-rc.2.tar.gz, or DSH_TARBALL=…)"
  exit 0
fi

t0=$SECONDS
cache="$("$here/harness-cache.sh" "$tarball")"
t1=$SECONDS
echo "test-dsh: harness ready in $((t1 - t0)) s ($cache)"
cd "$repo/js"
DSH_CACHE_DIR="$cache" DSH_PLUGIN_DIR="$repo/dist/dsh-plugin" TEST_LABEL=dsh \
  ${NODE_TEST:-node --test --test-concurrency=1} e2e/dsh/*.test.js
echo "test-dsh: suite took $((SECONDS - t1)) s (total $((SECONDS - t0)) s)"
