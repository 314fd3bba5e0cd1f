#!/usr/bin/env bash
# Fail when protos/ (as in the working tree) breaks the contract of an earlier commit.
#
#   tools/buf_breaking.sh BUF [REF]      (run from the repository root; REF defaults to HEAD~1)
#
# The earlier protos/ are exported with `git archive` into a temporary directory and
# given to `buf breaking --against`, so worktrees and any git layout work. Nothing to
# compare against is not an error: when REF does not exist (the first commit, or a
# shallow clone without history) or has no protos/ yet, the check prints
# "buf-breaking: skipped: no previous protos (...)" and succeeds.
set -euo pipefail

buf=${1:?usage: tools/buf_breaking.sh BUF [REF]}
ref=${2:-HEAD~1}
case $buf in /*) ;; *) buf=$PWD/$buf ;; esac

if ! commit=$(git rev-parse --verify --quiet "$ref^{commit}" 2>/dev/null); then
  why="no commit $ref"
  [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ] && why="$why in this shallow clone"
  echo "buf-breaking: skipped: no previous protos ($why)"
  exit 0
fi
if [ -z "$(git ls-tree -r --name-only "$commit" -- protos/ | grep '\.proto$' || true)" ]; then
  echo "buf-breaking: skipped: no previous protos ($ref has no protos/*.proto)"
  exit 0
fi

previous=$(mktemp -d)
trap 'rm -rf "$previous"' EXIT
git archive "$commit" protos | tar -x -C "$previous"
echo "buf-breaking: protos/ against $ref ($(git rev-parse --short "$commit"))"
cd protos
"$buf" breaking --against "$previous/protos"
