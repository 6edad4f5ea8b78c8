// C15: the residual add right after the linear_proj GEMM is launched with
// programmatic dependent launch, from a build whose grid-dependency wait
// compiled to nothing (flashinfer#2708): the add may start while the GEMM
// still writes its input. The kernels' module records the add's machine-code
// facts (no grid-dependency wait), so check can tell; without them (raw
// words, no module) the pair is only possible.
#include "kernels.h"
#include "training_step.h"

namespace racetrack::synth {

void TrainingLoop::attention_residual(const Tensor& proj, OpMark proj_written, const Tensor& x, Tensor& out,
                                      const std::string& at) {
  const int64_t duration = kernels::scaled(25000, options_.activation_bytes);
  const bool pdl = (e_.can_launch_pdl() || !options_.known_modes) && take(HazardShape::kC15);
  if (pdl) e_.watch(HazardShape::kC15, proj_written, proj, true, at);
  e_.kernel(kCompute, kernels::kAdd, {&proj, &x}, {&out}, duration, Launch{pdl});
}

}  // namespace racetrack::synth
