#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the code listings quoted in docs/race-codegen.md: the PTX (sm_90) and the AMD GCN
# assembly (gfx90a, wave64; gfx1030, wave32) of the three racy kernels, float32, Probe = false:
#   yamr_max_racy_kernel<W, false>                                          (the seed as written)
#   yamr_block_reduce_kernel<YAMR_DTYPE_F32, YAMR_VARIANT_RACY_VOLATILE, W, false>
#   yamr_block_reduce_kernel<YAMR_DTYPE_F32, YAMR_VARIANT_RACY_ITS, W, false>
# with W = 32 for sm_90 and gfx1030, W = 64 for gfx90a. Where cuobjdump is on PATH (the GPU
# machine), the SASS of the sm_90 instances too.
#   scripts/codegen.sh [OUTDIR]          (default: build/codegen)
# Needs nvcc (/usr/local/cuda/bin) for the NVIDIA listings and hipcc for the AMD ones; a missing
# compiler skips its part. The kernels are instantiated explicitly in a generated translation
# unit, with the flags of the library build (-std=c++17 -O3): a __global__ instance compiles to
# the same code whichever file instantiates it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$(mkdir -p "${1:-build/codegen}" && cd "${1:-build/codegen}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The generated headers the sources include, as CMake would write them.
printf '#define YAMR_API\n' > "$tmp/yamr_export.h"
printf '#define YAMR_VERSION_STRING "0.1.0"\n#define YAMR_PLATFORM_STRING "x"\n' > "$tmp/yamr_version.h"
cat > "$tmp/racy_instances.hip" <<'EOF'
#include "seed_kernel.hpp" /* lab/race: the seed kernel, and block_reduce.hpp */
template __global__ void yamr_max_racy_kernel<32, false>(const float *, int, yamr__result *, yamr__race_probe *);
template __global__ void yamr_max_racy_kernel<64, false>(const float *, int, yamr__result *, yamr__race_probe *);
#define YAMR_INSTANCE(V, W)                                                                     \
    template __global__ void yamr_block_reduce_kernel<YAMR_DTYPE_F32, V, W, false>(             \
        const uint32_t *, int, int, int, yamr__result *, yamr__race_probe *);
YAMR_INSTANCE(YAMR_VARIANT_RACY_VOLATILE, 32)
YAMR_INSTANCE(YAMR_VARIANT_RACY_VOLATILE, 64)
YAMR_INSTANCE(YAMR_VARIANT_RACY_ITS, 32)
YAMR_INSTANCE(YAMR_VARIANT_RACY_ITS, 64)
EOF
includes=(-I"$root/include" -I"$root/src" -I"$root/hip_kernels" -I"$root/lab/race" -I"$tmp")

# Mangled names: <kernel> <W>
name() {
    case $1 in
    seed) echo "_Z20yamr_max_racy_kernelILi$2ELb0EEvPKfiP12yamr__resultP16yamr__race_probe" ;;
    volatile) echo "_Z24yamr_block_reduce_kernelIL10yamr_dtype0EL12yamr_variant2ELi$2ELb0EEvPKN18yamr__dtype_traitsIXT_EE7storageEiiiP12yamr__resultP16yamr__race_probe" ;;
    its) echo "_Z24yamr_block_reduce_kernelIL10yamr_dtype0EL12yamr_variant3ELi$2ELb0EEvPKN18yamr__dtype_traitsIXT_EE7storageEiiiP12yamr__resultP16yamr__race_probe" ;;
    esac
}
# One kernel's body, numbered as in the whole file: <file> <mangled name> <ptx|gcn>
extract() {
    if [ "$3" = ptx ]; then
        awk -v n="$2" '$0 ~ "^\\.visible \\.entry " n "\\(" {p = 1} p {printf "%6d  %s\n", NR, $0} p && /^}/ {exit}' "$1"
    else
        awk -v n="$2" 'index($0, n ":") == 1 {p = 1} p {printf "%6d  %s\n", NR, $0} p && /s_endpgm/ {exit}' "$1"
    fi
}

nvcc=/usr/local/cuda/bin/nvcc
if [ -x "$nvcc" ]; then
    echo "== nvcc: $("$nvcc" --version | tail -1)"
    (set -x; "$nvcc" -std=c++17 -O3 -arch=sm_90 -x cu -ptx "${includes[@]}" \
        "$tmp/racy_instances.hip" -o "$out/racy-sm_90.ptx")
    for k in seed volatile its; do
        extract "$out/racy-sm_90.ptx" "$(name $k 32)" ptx > "$out/sm_90-$k-w32.ptx.txt"
    done
    if command -v cuobjdump > /dev/null || [ -x /usr/local/cuda/bin/cuobjdump ]; then
        cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
        /usr/local/cuda/bin/ptxas -O3 -arch=sm_90 "$out/racy-sm_90.ptx" -o "$tmp/racy-sm_90.cubin"
        for k in seed volatile its; do
            "$cuobjdump" -sass -fun "$(name $k 32)" "$tmp/racy-sm_90.cubin" > "$out/sm_90-$k-w32.sass.txt"
        done
    else
        echo "   no cuobjdump here: SASS not generated (run this script on the GPU machine)"
    fi
else
    echo "== no nvcc at $nvcc: NVIDIA listings skipped"
fi

if command -v hipcc > /dev/null; then
    echo "== hipcc: $(hipcc --version 2> /dev/null | grep -m1 -i 'clang version' || true)"
    mkdir -p "$tmp/amd"
    (cd "$tmp/amd" && set -x && hipcc -std=c++17 -O3 --offload-arch=gfx90a --offload-arch=gfx1030 \
        -x hip -save-temps -c "${includes[@]}" "$tmp/racy_instances.hip" -o racy.o) \
        2> "$tmp/hipcc.log" || { cat "$tmp/hipcc.log"; exit 1; }
    for arch in gfx90a gfx1030; do
        cp "$tmp/amd/racy_instances-hip-amdgcn-amd-amdhsa-$arch.s" "$out/racy-$arch.s"
        w=32; [ $arch = gfx90a ] && w=64
        for k in seed volatile its; do
            extract "$out/racy-$arch.s" "$(name $k $w)" gcn > "$out/$arch-$k-w$w.s.txt"
        done
    done
else
    echo "== no hipcc: AMD listings skipped"
fi

echo "== listings in $out:"
ls "$out"
