/*
 * builtin_scenario.c — the scenario played when FLINCH_SIM_SCENARIO is unset.
 *
 * Must stay byte-identical to sim/scenarios/demo.scn (tests/e2e/sim.sh
 * compares `simtool builtin` with the file), so that the default and the
 * documented demo never drift apart. Edit both together.
 */
#include "scenario.h"

const char sim_builtin_scenario[] =
    "# demo.scn — the built-in default scenario of the simulated NVML (the same\n"
    "# text is embedded in sim/builtin_scenario.c; tests/e2e/sim.sh checks that\n"
    "# the two are identical). `make demo` records about 5.5 s of it.\n"
    "#\n"
    "# One H200 serving two requests that each pause the client ~724 ms:\n"
    "#   request 1 computes: 612 W, 98 % util from 1000 to 1724 ms\n"
    "#                       (exactly 612 * 0.724 = 443.088 J);\n"
    "#   request 2 waits:    the GPU stays idle (75 W) from 3000 to 3724 ms\n"
    "#                       (75 * 0.724 = 54.3 J);\n"
    "#   an unrelated burst: 400 W, 60 % util from 4500 to 4800 ms.\n"
    "# Energy over [0, 5500] ms: 898.788 J.\n"
    "gpus 1\n"
    "power_readout average\n"
    "energy_update_ms 25\n"
    "power_limit_W 700\n"
    "at 0    power=75  util=0  mem_util=0  clock=345  temp=45 mem_used=70000 reasons=0x1\n"
    "at 1000 power=612 util=98 mem_util=71 clock=1980 temp=52 mem_used=74000 reasons=0x0\n"
    "at 1724 power=75  util=0  mem_util=0  clock=345  temp=45 mem_used=70000 reasons=0x1\n"
    "at 4500 power=400 util=60 mem_util=35 clock=1755 temp=48 mem_used=72000 reasons=0x0\n"
    "at 4800 power=75  util=0  mem_util=0  clock=345  temp=45 mem_used=70000 reasons=0x1\n";
