#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The library's cost (issue 34): its size and its kernel instances, counted as one nvcc host stub
# handle (`__device_stub__...::__handle`) per instance.
#
#     scripts/library-cost.sh LIBRARY [MAX_MB MAX_INSTANCES]
#
# Prints one line; with limits, fails when the library is over either. CTest runs it on an NVIDIA
# build (test `library_cost`; limits from -DYAMR_COST_LIMITS="8;150", issue 34's for sm_90 alone).
set -euo pipefail
lib=$1
bytes=$(stat -L -c %s "$lib")
instances=$(nm "$lib" | grep -c '__device_stub__.*__handle$' || true)
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "$(basename "$(readlink -f "$lib")"): $mb MB, $instances kernel instances"
if (($# >= 3)); then
  awk -v b="$bytes" -v m="$2" 'BEGIN { exit !(b <= m * 1e6) }' \
    || { echo "over $2 MB" >&2; exit 1; }
  ((instances <= $3)) || { echo "over $3 kernel instances" >&2; exit 1; }
  echo "within $2 MB and $3 instances"
fi
