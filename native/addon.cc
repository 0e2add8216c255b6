// N-API glue only: argument checks and typed-array plumbing. The system calls live in probe_*.cc.
#include <napi.h>

#include "probe.h"

namespace {

Napi::Value Probe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[0].IsTypedArray() || !info[1].IsTypedArray() || !info[2].IsTypedArray()) {
    Napi::TypeError::New(env, "probe(pids: Int32Array, states: Uint8Array, tokens: Float64Array)")
        .ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto pids = info[0].As<Napi::TypedArray>();
  auto states = info[1].As<Napi::TypedArray>();
  auto tokens = info[2].As<Napi::TypedArray>();
  if (pids.TypedArrayType() != napi_int32_array || states.TypedArrayType() != napi_uint8_array ||
      tokens.TypedArrayType() != napi_float64_array) {
    Napi::TypeError::New(env, "probe: expected Int32Array, Uint8Array, Float64Array").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const size_t count = pids.ElementLength();
  if (states.ElementLength() < count || tokens.ElementLength() < count) {
    Napi::RangeError::New(env, "probe: output arrays are shorter than the PID array").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  if (count == 0) return env.Undefined();
  ccs::ProbeBatch(pids.As<Napi::Int32Array>().Data(), count, states.As<Napi::Uint8Array>().Data(),
                  tokens.As<Napi::Float64Array>().Data());
  return env.Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("probe", Napi::Function::New(env, Probe, "probe"));
  exports.Set("clockTicks", Napi::Number::New(env, static_cast<double>(ccs::ClockTicksPerSecond())));
  return exports;
}

}  // namespace

NODE_API_MODULE(cc_sessions, Init)
