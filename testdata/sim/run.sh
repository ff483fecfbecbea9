#!/bin/bash
# Builds one testdata/sim program with gpucc-cache and runs it on GPGPU-Sim 4.2.
# usage: run.sh PROG.cu qv100|gtx480 [cache-policy] [extra gpucc-cache flags...]
# Prints the program's RESULT lines, the kernels' cycles and the CPU time; the log is kept in
# ${SIMW:-/tmp/simw}/NAME-ARCH-POLICY/log.txt.
set -e
prog=$(readlink -f "$1"); arch=$2; policy=${3:-default}; shift 3 2>/dev/null || shift $#
S=${SIM_ROOT:-/work/main/.sim}
GPUCC=${GPUCC:-/work/main/target/debug/gpucc-cache}
name=$(basename "$prog" .cu)
dir=${SIMW:-/tmp/simw}/$name-$arch-$policy${1:+-x}
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir"
case $arch in
  qv100) cfg=$S/gpgpu-sim/configs/tested-cfgs/SM7_QV100; icnt=config_volta_islip.icnt; sm=sm_70;;
  gtx480) cfg=$S/gpgpu-sim/configs/tested-cfgs/SM2_GTX480; icnt=config_fermi_islip.icnt; sm=sm_52;;
  *) echo "arch must be qv100 or gtx480" >&2; exit 2;;
esac
cp "$cfg/gpgpusim.config" "$cfg/$icnt" .
sed -i '/^-gpuwattch_xml_file/d; s/^-gpgpu_kernel_launch_latency 5000/-gpgpu_kernel_launch_latency 0/; s/^-power_simulation_enabled 1/-power_simulation_enabled 0/; s/^-gpgpu_ptx_force_max_capability 20/-gpgpu_ptx_force_max_capability 52/; s/^-gpgpu_occupancy_sm_number 20/-gpgpu_occupancy_sm_number 52/' gpgpusim.config
pol=(); [ "$policy" != default ] && pol=(--cache-policy="$policy")
"$GPUCC" --cuda-gpu-arch=$sm "$prog" -o app -cudart none -L$S/cuda/lib64 -lcudart -Wl,-rpath,$S/cuda/lib64 --cache-report=none "${pol[@]}" "$@"
set +e
start=$(date +%s.%N)
/usr/bin/time -f '%U %S' -o cpu.txt env CUDA_INSTALL_PATH=$S/cuda PTXAS_CUDA_INSTALL_PATH=$S/cuda \
  LD_LIBRARY_PATH=$S/gpgpu-sim/lib/gcc-12.2.0/cuda-11080/release CUOBJDUMP_SIM_FILE=jj ./app > log.txt 2>&1
rc=$?
grep '^RESULT' log.txt
echo "cycles: $(grep -v '^\s' log.txt | grep '^gpu_sim_cycle' | awk '{s+=$3} END {print s}') over $(grep -c '^kernel_name' log.txt) launches"
echo "exit $rc, cpu $(awk '{print $1+$2}' cpu.txt) s"
