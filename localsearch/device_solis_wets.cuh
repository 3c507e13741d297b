// Solis-Wets on the GPU with the success/failure decision taken on the device. A step is three
// launches that read and update a small device-resident state; the host enqueues steps without
// waiting and reads the state back only to learn how many evaluations are left (at most
// log2(I_str) times per application, see CudaEngine::solis_wets).
//
//   forward  : x' = clip(x + bias + dif), evaluated; decides success or asks for the backward move
//   backward : only if asked: x'' = clip(x - bias - dif), evaluated; decides success/failure
//   apply    : moves x and updates bias as decided, then adapts rho and the counters
//
// Launched per step, dif is never stored: every launch of a step restores the same per-thread
// XORWOW states and draws the same normals (the chain kernel below keeps its dif in one row).
// `forward` stores the advanced states into the other of two buffers (the host alternates them
// per step; the device counts the flips in rng_parity), so `apply` needs no normals after a
// failure. A candidate is never stored either: `apply` recomputes the accepted move from x,
// bias and dif (clipping is deterministic), so a step moves 2 vectors per evaluation plus the
// update instead of 4-5.
#pragma once

#include "localsearch/device_sw_chain.cuh"
#include "localsearch/device_sw_external.cuh"
#include "localsearch/device_sw_ops.cuh"
#include "localsearch/device_sw_state.cuh"
