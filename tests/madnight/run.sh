#!/bin/sh
# The Madnight comparison, local runs only (nothing of the engine or the SDK is committed):
#   tests/madnight/run.sh MADNIGHT_CHECKOUT PCSX_REDUX_CHECKOUT [EMULATOR]
# 1. the engine's own exporter (tools/blender_animbin.py, headless Blender) writes the Walk of
#    tests/fixtures/fbx/twenty_bones.fbx (20 bones, 30 frames) as ANIMBIN;
# 2. its animation sources are copied to target/madnight-bench/engine with MAX_BONES raised from 15
#    to 20 (the engine's only change);
# 3. bench.cpp is built with psyqo and psxanim's C library and run by `psxanim run`, whose --expect
#    check prints the cycle figures.
set -eu
engine=$(realpath "$1"); psyqo=$(realpath "$2"); emulator=${3:-pcsx-rearmed}
ws=$(cd "$(dirname "$0")/../.." && pwd)
out=$ws/target/madnight-bench
mkdir -p "$out/engine"
cp "$ws/tests/madnight/bench.cpp" "$ws/tests/madnight/clip.S" "$ws/tests/madnight/Makefile" "$out/"
blender -b --python "$ws/tests/madnight/export.py" -- "$engine/tools" "$ws/tests/fixtures/fbx/twenty_bones.fbx" "$out/walk20.animbin" > "$out/blender.log" 2>&1
cp -r "$engine/src/." "$out/engine/"
sed -i 's/static constexpr uint8_t MAX_BONES = 15;/static constexpr uint8_t MAX_BONES = 20;/' "$out/engine/mesh/skeleton/skeleton.hh"
cd "$ws" && cargo xtask build-exe --example c-game > /dev/null   # the C library, for the console
make -C "$out" PSYQO_DIR="$psyqo" CAPI="$ws/target/psx-capi/mipsel-sony-psx/release/libpsxanim_capi.a" \
    CAPI_INCLUDE="$ws/capi/include" CLIP_ANIMBIN="$out/walk20.animbin"
cargo run -q --release -p psxanim -- run "$out/madnight-bench.ps-exe" --emulator "$emulator" --frames 60 \
    --expect "$ws/tests/madnight/expect.json" --json
