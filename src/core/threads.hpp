// How many OpenMP threads a call may use: the handle's count, but one inside an OpenMP
// parallel region, and one in a child forked after OpenMP threads were started.
#pragma once

namespace tessera::core {

int call_threads(int requested);

} // namespace tessera::core
