#!/usr/bin/env bash
# The production build, in one place: the Dockerfile's build stage runs this,
# and CI runs it in a scratch directory (scripts/check-release.mjs).
#   scripts/build-release.sh <source dir> <target dir>
# The target gets package.json, the lockfile, dist/ and production-only
# node_modules (patches applied): start it with `node dist/server.js`, the
# CLI is `node dist/cli.js` (or the `shop-seller-api` bin).
set -euo pipefail
source_dir=$(cd "$1" && pwd)
target=$2
mkdir -p "$target"
target=$(cd "$target" && pwd)

cd "$source_dir"
# The sources are the entry files and folders tsconfig.build.json compiles (scripts/source-hash.mjs).
read -r -a sources <<<"$(node -e "import('./scripts/source-hash.mjs').then((m) => console.log(m.SOURCES.join(' ')))")"
cp -R package.json package-lock.json tsconfig.json tsconfig.build.json LICENSE patches scripts \
  "${sources[@]}" "$target/"
cd "$target"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent build
npm prune --omit=dev --no-audit --no-fund --loglevel=error
# Only what runs: the compiled service and its production dependencies.
rm -rf ./*.ts tsconfig.json tsconfig.build.json patches scripts "${sources[@]}"
