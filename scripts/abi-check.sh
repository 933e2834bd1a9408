#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ABI rule (README, "Versions and ABI"), checked: before 1.0 every minor version is a new
# ABI, so libyamr's soname is libyamr.so.0.<minor> and yamrConfigVersion.cmake accepts only the
# same minor (SameMinorVersion); from 1.0 on, libyamr.so.<major> and the same major.
#
#     scripts/abi-check.sh [--dump]
#
# Builds libyamr for the CPU with debug information (build/abi: abidw and abidiff read the types
# from it), then checks (1) the soname and (2) the version file against the rule, and (3)
# compares the library's ABI (abidiff, Debian's abigail-tools) with the newest dump in abi/:
# one of the same soname (a patch release) must show no incompatible change; one of an earlier
# soname is a new ABI by the rule, and its changes are printed for the changelog.
# --dump also writes this version's dump, abi/libyamr-<soname version>.xml, to check in when a
# minor version is released.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
dump=0
case "${1:-}" in
  --dump) dump=1 ;;
  "") ;;
  *) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac
for tool in abidw abidiff readelf; do
  command -v "$tool" > /dev/null || { echo "abi-check: $tool not found (Debian: abigail-tools, binutils)" >&2; exit 1; }
done

build=build/abi
cmake -S . -B "$build" -DYAMR_PLATFORM=cpu -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DYAMR_BUILD_TESTS=OFF -DYAMR_BUILD_BENCH=OFF -DYAMR_BUILD_EXAMPLES=OFF \
  -DYAMR_WITH_MPI=OFF -DYAMR_WITH_FORTRAN=OFF > "$build.log" 2>&1 || { cat "$build.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target yamr >> "$build.log" 2>&1 || { tail -30 "$build.log"; exit 1; }
version=$(sed -n 's/^set(CMAKE_PROJECT_VERSION:.*=//p; s/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt" | head -n 1)
IFS=. read -r major minor patch <<< "$version"
lib=$(readlink -f "$build/libyamr.so")

# (1) the soname
if ((major == 0)); then abi_version=0.$minor; else abi_version=$major; fi
want_soname=libyamr.so.$abi_version
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $soname == "$want_soname" ]] || { echo "abi-check: yamr $version has soname '$soname', the rule says $want_soname" >&2; exit 1; }
echo "soname: $soname (yamr $version)"

# (2) the version file: accepts exactly the versions of this ABI
cat > "$build/version-check.cmake" << 'EOS'
foreach(asked IN LISTS ASKED)
  string(REPLACE "=" ";" pair "${asked}")
  list(GET pair 0 PACKAGE_FIND_VERSION)
  list(GET pair 1 want)
  string(REPLACE "." ";" parts "${PACKAGE_FIND_VERSION}")
  list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
  list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
  list(GET parts 2 PACKAGE_FIND_VERSION_PATCH)
  set(PACKAGE_FIND_VERSION_COUNT 3)
  unset(PACKAGE_VERSION_COMPATIBLE)
  include(${VERSION_FILE})
  if(NOT "${PACKAGE_VERSION_COMPATIBLE}" STREQUAL "${want}")
    message(FATAL_ERROR "find_package(yamr ${PACKAGE_FIND_VERSION}) against ${PACKAGE_VERSION}: "
                        "compatible '${PACKAGE_VERSION_COMPATIBLE}', the rule says '${want}'")
  endif()
  message(STATUS "find_package(yamr ${PACKAGE_FIND_VERSION}) against ${PACKAGE_VERSION}: ${want}")
endforeach()
EOS
if ((major == 0)); then
  asked="0.$minor.0=TRUE;0.$((minor + 1)).0=FALSE"
  ((minor > 0)) && asked+=";0.$((minor - 1)).0=FALSE"
  asked+=";1.0.0=FALSE"
else
  asked="$major.0.0=TRUE;$((major + 1)).0.0=FALSE;$((major - 1)).0.0=FALSE"
fi
cmake -DVERSION_FILE="$root/$build/yamrConfigVersion.cmake" -DASKED="$asked" -P "$build/version-check.cmake"

# (3) the ABI against the newest dump in abi/
baseline=$(ls abi/libyamr-*.xml 2> /dev/null | sort -V | tail -n 1)
if [[ -z $baseline ]]; then
  echo "abi-check: no dump in abi/ to compare with" >&2
  exit 1
fi
base_soname=$(sed -n "1s/.*soname='\([^']*\)'.*/\1/p" "$baseline")
rc=0
abidiff --no-show-locs --suppressions abi/suppressions.txt "$baseline" "$lib" \
  > "$build/abidiff.txt" 2>&1 || rc=$?
if ((rc & 3)); then cat "$build/abidiff.txt"; echo "abi-check: abidiff failed (exit $rc)" >&2; exit 1; fi
if [[ $base_soname == "$soname" ]]; then
  # Added functions keep the ABI; anything removed or changed (a struct's layout, a parameter)
  # breaks it. abidiff's exit status says "change" for both, so read its summary.
  if ((rc & 8)) || grep -E 'changes summary:' "$build/abidiff.txt" | grep -vqE ': 0 Removed, 0 Changed'; then
    cat "$build/abidiff.txt"
    echo "abi-check: the ABI changed against $baseline with the same soname $soname" >&2
    exit 1
  fi
  echo "ABI: compatible with $baseline (same soname $soname)"
else
  echo "ABI: $soname is a new ABI after $base_soname ($baseline); abidiff says:"
  sed -n '1,/^$/p' "$build/abidiff.txt" | sed 's/^/    /'
fi
if ((dump)); then
  out=abi/libyamr-$abi_version.xml
  abidw --no-corpus-path --no-show-locs --short-locs --no-comp-dir-path --headers-dir include \
    --headers-dir "$build/include" --out-file "$out" "$lib"
  echo "wrote $out"
fi
