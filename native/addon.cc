// N-API glue only: argument checks and typed-array plumbing. The system calls live in probe_*.cc.
#include <napi.h>

#include "lock.h"
#include "probe.h"
#include "read.h"

#include <string>

namespace claude_ps {
void RegisterExitWatch(Napi::Env env, Napi::Object exports);  // exit_poller.cc, exit_win32.cc
}  // namespace claude_ps

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
  claude_ps::ProbeBatch(pids.As<Napi::Int32Array>().Data(), count, states.As<Napi::Uint8Array>().Data(),
                  tokens.As<Napi::Float64Array>().Data());
  return env.Undefined();
}

// readFilesInto(dir, names joined by NUL, count, maxBytes, status: Uint8Array, meta: Float64Array,
// out: Uint8Array) -> the bytes written into out, one file after another; or, when some file did not
// fit, minus the room the whole batch needs (then status and meta say nothing: read again, bigger).
Napi::Value ReadFilesInto(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 7 || !info[0].IsString() || !info[1].IsString() || !info[2].IsNumber() ||
      !info[3].IsNumber() || !info[4].IsTypedArray() || !info[5].IsTypedArray() || !info[6].IsTypedArray()) {
    Napi::TypeError::New(env, "readFilesInto(dir, names, count, maxBytes, status: Uint8Array, meta: Float64Array, out: Uint8Array)")
        .ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto status = info[4].As<Napi::TypedArray>();
  auto meta = info[5].As<Napi::TypedArray>();
  auto out = info[6].As<Napi::TypedArray>();
  const double count_d = info[2].As<Napi::Number>().DoubleValue();
  const double max_d = info[3].As<Napi::Number>().DoubleValue();
  if (status.TypedArrayType() != napi_uint8_array || meta.TypedArrayType() != napi_float64_array ||
      out.TypedArrayType() != napi_uint8_array || !(count_d >= 0) || !(max_d >= 0) || max_d > 1073741824.0) {
    Napi::TypeError::New(env, "readFilesInto: bad count, maxBytes or array types").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const size_t count = static_cast<size_t>(count_d);
  if (status.ElementLength() < count || meta.ElementLength() < count * claude_ps::kMetaStride) {
    Napi::RangeError::New(env, "readFilesInto: output arrays are too short").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const std::string dir = info[0].As<Napi::String>().Utf8Value();
  const std::string names = info[1].As<Napi::String>().Utf8Value();
  auto bytes = out.As<Napi::Uint8Array>();
  claude_ps::ByteSink sink{reinterpret_cast<char*>(bytes.Data()), bytes.ElementLength(), 0, 0};
  claude_ps::ReadFilesAt(dir.c_str(), names.data(), names.size(), count, static_cast<size_t>(max_d),
                   status.As<Napi::Uint8Array>().Data(), meta.As<Napi::Float64Array>().Data(), &sink);
  if (sink.needed > 0) return Napi::Number::New(env, -static_cast<double>(sink.used + sink.needed));
  return Napi::Number::New(env, static_cast<double>(sink.used));
}

// listFolder(dir, stamps: Float64Array of 2 * kStampStride) -> the names, each followed by a NUL, or
// -errno. One crossing for the stamps and the listing of a proven-complete listing (docs/guard.md).
Napi::Value ListFolder(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 2 || !info[0].IsString() || !info[1].IsTypedArray()) {
    Napi::TypeError::New(env, "listFolder(dir: string, stamps: Float64Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto stamps = info[1].As<Napi::TypedArray>();
  if (stamps.TypedArrayType() != napi_float64_array || stamps.ElementLength() < 2 * claude_ps::kStampStride) {
    Napi::RangeError::New(env, "listFolder: stamps must be a Float64Array of 14").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const std::string dir = info[0].As<Napi::String>().Utf8Value();
  if (dir.empty() || dir.find('\0') != std::string::npos) {
    Napi::TypeError::New(env, "listFolder: dir is empty or holds NUL").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::string names;
  names.reserve(4096);
  const int err = claude_ps::ListFolder(dir.c_str(), &names, stamps.As<Napi::Float64Array>().Data());
  if (err != 0) return Napi::Number::New(env, -err);
  return Napi::String::New(env, names.data(), names.size());
}

// lockFolder(path) -> descriptor holding flock(LOCK_EX) on the folder, or -errno (-EWOULDBLOCK: held)
Napi::Value LockFolder(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "lockFolder(path: string)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  if (path.empty() || path.find('\0') != std::string::npos) {
    Napi::TypeError::New(env, "lockFolder: path is empty or holds NUL").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Number::New(env, claude_ps::LockFolder(path.c_str()));
}

// The exit watcher's part (FdPoller, exitHandle, hangupHandle, ...), a fresh object per call, which the
// caller keeps (lib/backend/exits.ts). Made on first need, not in Init: defining its class at every load
// cost ~0.2 ms of each cold start, and most processes only read.
Napi::Value ExitWatch(const Napi::CallbackInfo& info) {
  Napi::Object parts = Napi::Object::New(info.Env());
  claude_ps::RegisterExitWatch(info.Env(), parts);
  return parts;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("probe", Napi::Function::New(env, Probe, "probe"));
  exports.Set("readFilesInto", Napi::Function::New(env, ReadFilesInto, "readFilesInto"));
  exports.Set("lockFolder", Napi::Function::New(env, LockFolder, "lockFolder"));
  exports.Set("listFolder", Napi::Function::New(env, ListFolder, "listFolder"));
  exports.Set("clockTicks", Napi::Number::New(env, static_cast<double>(claude_ps::ClockTicksPerSecond())));
  exports.Set("exitWatch", Napi::Function::New(env, ExitWatch, "exitWatch"));
  return exports;
}

}  // namespace

NODE_API_MODULE(claude_ps, Init)
