#!/usr/bin/env bash
# Commit messages from the first commit held to the rule on: a subject of at most 72
# characters, then (when there is a body) one blank line before it. Older history predates the
# rule. In a shallow clone without that commit, only the commits present are checked.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
since=2560879 # the last commit before the rule
range=HEAD
git cat-file -e "$since^{commit}" 2>/dev/null && range="$since..HEAD"
bad=0
while read -r hash; do
  subject="$(git log -1 --format=%s "$hash")"
  second="$(git log -1 --format=%B "$hash" | sed -n 2p)"
  if [ "${#subject}" -gt 72 ]; then
    echo "commit $hash: subject of ${#subject} characters (at most 72): $subject" >&2
    bad=1
  fi
  if [ -n "$second" ]; then
    echo "commit $hash: no blank line between the subject and the body" >&2
    bad=1
  fi
done < <(git rev-list "$range")
[ "$bad" = 0 ] && echo "commits: subjects of at most 72 characters in $range"
exit "$bad"
