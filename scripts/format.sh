#!/usr/bin/env bash
# The look of the C, C++ and CUDA sources (.clang-format): rewrites them in place, or with
# --check changes nothing and fails listing every file that differs (as CI runs it).
# Needs clang-format 14 (Debian's clang-format package), the version CI checks with.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mapfile -t files < <(git ls-files -- 'src/*.cpp' 'src/*.hpp' 'cuda/*.cu' 'cuda/*.cuh' 'cuda/*.cpp' \
  'cuda/*.hpp' 'include/*.h' 'tests/*.c' 'tests/*.cpp' 'tests/*.hpp' 'bench/*.cpp' 'bench/*.hpp' \
  'examples/*.c' 'examples/*.cpp' 'bindings/*.c' 'bindings/*.cpp' 'bindings/*.h')
format="${CLANG_FORMAT:-clang-format}"
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    "$format" --style=file --dry-run -Werror "$f" > /dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    printf 'not formatted (run scripts/format.sh): %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files as .clang-format says"
else
  "$format" --style=file -i "${files[@]}"
fi
