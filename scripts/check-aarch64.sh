#!/usr/bin/env bash
# Builds nimseq for 64-bit ARM (aarch64: Graviton, Grace, Ampere, Apple silicon under Linux) on an
# x86-64 Debian/Ubuntu machine and checks it under emulation (qemu-user): the tier it reports,
# that x86 tiers are refused, the engine's tests, and values bit for bit against this machine's
# own build, on the NEON tier (the default) and the portable loops (NIMSEQ_ISA=portable). Emulated
# timings mean nothing about ARM's speed; this checks correctness only.
#
# Usage: scripts/check-aarch64.sh           (about 20 min on 2 cores, most of it building)
#        CHECK_AARCH64_TESTS=all scripts/check-aarch64.sh   also every other integration test
#        CHECK_AARCH64_GRUNDY=1 scripts/check-aarch64.sh    also Grundy's game past its first
#                                                            value 256 (long under emulation)
# Needs: the Rust standard library for aarch64-unknown-linux-gnu (rustup target add), the cross
# linker and ARM C library (Debian: gcc-aarch64-linux-gnu) and qemu-user; run as root it installs
# what is missing (apt-get, rustup) and registers qemu for aarch64 programs (binfmt_misc), which
# the integration tests need to start the binary; otherwise it says what is missing.
# The ARM build goes to target/aarch64 (its own CARGO_TARGET_DIR), the x86 one to target/.
set -euo pipefail
cd "$(dirname "$0")/.."

triple=aarch64-unknown-linux-gnu
sysroot=/usr/aarch64-linux-gnu
start=$(date +%s)
say() { echo "check-aarch64: $*" >&2; }
fail() {
	say "FAILED: $*"
	exit 1
}
root() { [ "$(id -u)" = 0 ]; }

# --- What it needs -------------------------------------------------------------------------------
missing=()
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)
if [ ${#missing[@]} -gt 0 ]; then
	if root && command -v apt-get >/dev/null; then
		say "installing ${missing[*]}"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	else
		fail "missing ${missing[*]}: as root, apt-get install -y ${missing[*]}"
	fi
fi
if command -v rustup >/dev/null; then
	if ! rustup target list --installed | grep -qx "$triple"; then
		say "adding the Rust target $triple"
		rustup target add "$triple"
	fi
elif ! rustc --print target-libdir --target "$triple" >/dev/null 2>&1; then
	fail "no Rust standard library for $triple (rustup target add $triple)"
fi

# Integration tests start the binary directly: the kernel must hand aarch64 programs to qemu.
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/qemu-aarch64" ] && root; then
	[ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null || true
	conf=/usr/lib/binfmt.d/qemu-aarch64.conf
	if [ -e "$binfmt/register" ] && [ -f "$conf" ]; then
		say "registering qemu-aarch64 with binfmt_misc ($conf)"
		cat "$conf" >"$binfmt/register" || true
	fi
fi
direct=yes
if [ ! -e "$binfmt/qemu-aarch64" ]; then
	direct=no
	say "aarch64 programs cannot be started directly (no binfmt_misc entry: as root, install" \
		"qemu-user-binfmt or run this script as root): only tests run through cargo's runner"
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L $sysroot"
export QEMU_LD_PREFIX=$sysroot # for the binary started by the tests through binfmt_misc
arm_dir=target/aarch64
run_arm() { qemu-aarch64 -L "$sysroot" "$arm_dir/$triple/release/nimseq" "$@"; }
x86=target/release/nimseq

# --- Build ---------------------------------------------------------------------------------------
say "building for $triple"
CARGO_TARGET_DIR=$arm_dir cargo build --release --target "$triple" --bin nimseq
say "building for this machine (the reference values)"
cargo build --release --bin nimseq

# --- The tiers -----------------------------------------------------------------------------------
version=$(run_arm --version)
echo "$version"
grep -q "engine tier neon (the best this processor has" <<<"$version" ||
	fail "--version does not name the neon tier"
forced=$(NIMSEQ_ISA=portable run_arm --version)
echo "NIMSEQ_ISA=portable: $forced"
grep -q "engine tier portable (asked for" <<<"$forced" ||
	fail "NIMSEQ_ISA=portable does not force the portable tier"
for isa in avx2 avx512bw avx512vbmi bogus; do
	set +e
	err=$(NIMSEQ_ISA=$isa run_arm values kayles -n 10 2>&1 >/dev/null)
	code=$?
	set -e
	[ "$code" = 2 ] && grep -q "portable" <<<"$err" ||
		fail "NIMSEQ_ISA=$isa: exit $code, '$err' (want exit 2 and the list of tiers)"
	echo "NIMSEQ_ISA=$isa refused (exit 2): $err"
done

# --- Values bit for bit against this machine -----------------------------------------------------
# ARM_ISA: the tier forced on the ARM side (empty: its default, neon).
compare() {
	local a b
	a=$(NIMSEQ_ISA=${ARM_ISA:-} run_arm values "$@" -q | md5sum | cut -d' ' -f1)
	b=$("$x86" values "$@" -q | md5sum | cut -d' ' -f1)
	[ "$a" = "$b" ] || fail "values $* (aarch64 tier ${ARM_ISA:-default}): aarch64 $a, x86-64 $b"
	echo "values $* (aarch64 tier ${ARM_ISA:-default}): $a on both"
}
compare officers -n 200000
compare officers -n 200000 --threads 1
compare grundy -n 300000 --threads 1
compare grundy -n 1000000
compare 0.167 -n 4194304
compare 0.6 -n 20000 --engine exact
compare 0.376 -n 300000
compare 0.354 -n 300000 --threads 1
ARM_ISA=portable compare officers -n 200000 --threads 1
ARM_ISA=portable compare grundy -n 300000 --threads 1

# --- The engine's tests --------------------------------------------------------------------------
tests=(--lib --test sparse_engine)
[ "$direct" = yes ] && tests+=(--test cli_tiers)
if [ "${CHECK_AARCH64_TESTS:-}" = all ]; then
	if [ "$direct" = yes ]; then tests=(--lib --tests); else tests=(--lib --test sparse_engine --test exact_engine); fi
fi
say "cargo test ${tests[*]} under qemu"
# Left out: a bound on wall-clock time (2 minutes) that emulation alone exceeds.
CARGO_TARGET_DIR=$arm_dir cargo test --release --target "$triple" "${tests[@]}" -- \
	--skip position::misere::tests::refusal_is_prompt

if [ "${CHECK_AARCH64_GRUNDY:-}" = 1 ]; then
	say "Grundy's game past its first value 256 (scripts/check-grundy.sh) under qemu"
	NIMSEQ_GRUNDY_HEAPS=7400000 CARGO_TARGET_DIR=$arm_dir cargo test --release --target "$triple" \
		--test sparse_engine -- --ignored --nocapture grundy_past_first_value_256
fi
say "passed in $(($(date +%s) - start)) s"
