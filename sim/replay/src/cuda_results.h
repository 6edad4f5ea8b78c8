// A GPU run mapped back to the trace: the logged granule mismatches and the
// final stamps as mismatches in traced bytes (the same as the host backend
// reports), and the measured times as a timeline. Plain C++, tested without
// a GPU.
#pragma once

#include "cuda_backend.h"
#include "host_backend.h"

namespace racetrack::replay {

HostRun assemble_run(const des::Program& program, const ArenaPlan& plan, const LaunchList& launches,
                     DeviceRun run);

}  // namespace racetrack::replay
