#!/usr/bin/env bash
# The commit message rule: a subject of at most 72 characters that starts with a scope,
# `scope: text`, the scope in lowercase letters, digits, hyphens and slashes
# (`payments: one atomic write per transition`); the body is free. A merge commit whose subject
# starts with `Merge ` needs no scope, but keeps to 72 characters.
#
#   scripts/check-commit-messages.sh                      every commit after BASE up to HEAD (make lint)
#   scripts/check-commit-messages.sh --message-file FILE  one message being committed (scripts/commit-msg)
#
# Lists each offender and exits 1; exits 0 when every message keeps the rule.
set -euo pipefail

# 28b827e is the last commit made before the rule was set (issue 20). The history up to it is kept
# as it was written, so only the commits after it are checked.
BASE=28b827e
MAX=72
SCOPED='^[a-z0-9/-]+: [^[:space:]]'

# ${#subject} counts characters, not bytes, in a UTF-8 locale (a subject may hold "→" or "ã").
export LC_ALL=C.UTF-8

# What is wrong with a subject (nothing printed when it is right); $2 is "merge" for a merge commit.
problem_with() {
  local subject=$1 kind=${2:-}
  if ((${#subject} > MAX)); then
    echo "${#subject} characters, over $MAX"
  elif [[ $kind == merge && $subject == "Merge "* ]]; then
    return 0
  elif ! [[ $subject =~ $SCOPED ]]; then
    echo "no scope: write 'scope: text', the scope in lowercase letters, digits, - and /"
  fi
}

if [[ ${1:-} == --message-file ]]; then
  file=${2:?--message-file needs the message file}
  # As git will store it: comment lines and leading blank lines dropped, trailing spaces cut.
  subject=$(grep -v '^#' "$file" | sed -e 's/[[:space:]]*$//' | grep -m1 -v '^$' || true)
  # An empty message: git itself refuses it.
  [[ -n $subject ]] || exit 0
  # fixup!, squash! and amend! commits are folded away by `git rebase --autosquash`; make lint
  # still catches one that stays.
  [[ $subject =~ ^(fixup|squash|amend)!\  ]] && exit 0
  kind=
  git rev-parse -q --verify MERGE_HEAD >/dev/null 2>&1 && kind=merge
  problem=$(problem_with "$subject" "$kind")
  [[ -z $problem ]] && exit 0
  echo "commit message: \"$subject\": $problem" >&2
  echo "(the rule: docs/development.md, Commit messages; git kept the message in $(git rev-parse --git-path COMMIT_EDITMSG))" >&2
  exit 1
fi

cd "$(dirname "$0")/.."
if git rev-parse -q --verify "$BASE^{commit}" >/dev/null && git merge-base --is-ancestor "$BASE" HEAD; then
  range=("$BASE..HEAD")
  which="after $BASE"
else
  echo "check-commit-messages: $BASE is not in this clone's history (a shallow clone?): checking HEAD's message only"
  range=(-1 HEAD)
  which="checked"
fi

offenders=0
# Fields apart by the unit separator: a tab would collapse the empty parents of a shallow clone's root.
while IFS=$'\x1f' read -r hash parents subject; do
  kind=
  [[ $parents == *' '* ]] && kind=merge
  problem=$(problem_with "$subject" "$kind")
  if [[ -n $problem ]]; then
    echo "  ${hash:0:7} $subject"
    echo "          $problem"
    offenders=$((offenders + 1))
  fi
done < <(git log --format='%H%x1f%P%x1f%s' "${range[@]}")

if ((offenders > 0)); then
  echo "check-commit-messages: $offenders commit(s) $which break the rule (docs/development.md, Commit messages);"
  echo "reword them before they are merged: git rebase -i <base>, 'reword' each one."
  exit 1
fi
