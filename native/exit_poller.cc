// N-API and libuv glue for the kernel handles of exit.h: each descriptor is polled with a uv_poll_t on
// Node's own event loop, so the loop wakes only when a watched process exits (or stdout's reader goes
// away). Handles are unreferenced (they never keep the process alive) and are closed on remove(),
// close(), and at environment teardown (a worker thread ending), through an async cleanup hook that
// waits for libuv to finish closing them.
#include <napi.h>
#include <uv.h>

#include "exit.h"

#include <cerrno>
#include <cmath>
#include <unistd.h>
#include <unordered_map>

namespace claude_ps {
namespace {

class FdPoller;

enum class Arg { kBadType, kOutOfRange, kOk };

// The one argument of add / exitHandle / hangupHandle: a whole number from `min` to INT32_MAX.
Arg IntArgument(const Napi::CallbackInfo& info, double min, int32_t* out) {
  if (info.Length() != 1 || !info[0].IsNumber()) return Arg::kBadType;
  const double value = info[0].As<Napi::Number>().DoubleValue();
  if (!(value >= min) || value > 2147483647.0 || value != std::floor(value)) return Arg::kOutOfRange;
  *out = static_cast<int32_t>(value);
  return Arg::kOk;
}

struct Watched {
  uv_poll_t poll;
  int fd;
  FdPoller* owner;
};

// new FdPoller(onReady: (fd: number, status: number) => void)
//   add(fd) -> 0 | -errno   takes the descriptor: closed on remove(), close() or failure
//   remove(fd) -> boolean   close() -> undefined   size -> open descriptors
class FdPoller : public Napi::ObjectWrap<FdPoller> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "FdPoller",
                       {InstanceMethod<&FdPoller::Add>("add"), InstanceMethod<&FdPoller::Remove>("remove"),
                        InstanceMethod<&FdPoller::Close>("close"), InstanceAccessor<&FdPoller::Size>("size")});
  }

  explicit FdPoller(const Napi::CallbackInfo& info) : Napi::ObjectWrap<FdPoller>(info) {
    Napi::Env env = info.Env();
    if (info.Length() != 1 || !info[0].IsFunction()) {
      Napi::TypeError::New(env, "new FdPoller(onReady: function)").ThrowAsJavaScriptException();
      return;
    }
    if (napi_get_uv_event_loop(env, &loop_) != napi_ok || loop_ == nullptr) {
      Napi::Error::New(env, "FdPoller: no event loop").ThrowAsJavaScriptException();
      return;
    }
    callback_ = Napi::Persistent(info[0].As<Napi::Function>());
    napi_add_async_cleanup_hook(env, OnTeardown, this, &teardown_);
  }

  ~FdPoller() override {
    // Reached only once nothing is open or closing (the object is referenced until then).
    if (teardown_ != nullptr) napi_remove_async_cleanup_hook(teardown_);
  }

 private:
  Napi::Value Add(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    int32_t fd = -1;
    const Arg arg = IntArgument(info, 0, &fd);
    if (arg != Arg::kOk) {
      if (arg == Arg::kBadType) Napi::TypeError::New(env, "add(fd: number)").ThrowAsJavaScriptException();
      else Napi::RangeError::New(env, "add: fd must be a descriptor number").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    if (open_.count(fd) != 0) return Napi::Number::New(env, -EEXIST);
    if (closed_) {
      close(fd);
      return Napi::Number::New(env, -EBADF);
    }
    auto* w = new Watched{};
    w->fd = fd;
    w->owner = this;
    int rc = uv_poll_init(loop_, &w->poll, fd);
    if (rc != 0) {
      close(fd);
      delete w;
      return Napi::Number::New(env, rc);
    }
    w->poll.data = w;
    uv_unref(reinterpret_cast<uv_handle_t*>(&w->poll));
    open_[fd] = w;
    if (!referenced_) {
      Ref();
      referenced_ = true;
    }
    rc = uv_poll_start(&w->poll, UV_READABLE, OnReady);
    if (rc != 0) {
      open_.erase(fd);
      CloseHandle(w);
      return Napi::Number::New(env, rc);
    }
    return Napi::Number::New(env, 0);
  }

  Napi::Value Remove(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() != 1 || !info[0].IsNumber()) {
      Napi::TypeError::New(env, "remove(fd: number)").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    auto it = open_.find(info[0].As<Napi::Number>().Int32Value());
    if (it == open_.end()) return Napi::Boolean::New(env, false);
    Watched* w = it->second;
    open_.erase(it);
    CloseHandle(w);
    return Napi::Boolean::New(env, true);
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    closed_ = true;
    CloseAll();
    return info.Env().Undefined();
  }

  Napi::Value Size(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(open_.size() + closing_));
  }

  void CloseHandle(Watched* w) {
    ++closing_;
    uv_close(reinterpret_cast<uv_handle_t*>(&w->poll), OnClosed);
  }

  void CloseAll() {
    for (auto& entry : open_) CloseHandle(entry.second);
    open_.clear();
    MaybeDone();
  }

  // Nothing open or closing: let the object be collected, and let a waiting teardown go on.
  void MaybeDone() {
    if (!open_.empty() || closing_ != 0) return;
    if (closed_ && teardown_ != nullptr) {
      napi_remove_async_cleanup_hook(teardown_);
      teardown_ = nullptr;
    }
    if (referenced_) {
      referenced_ = false;
      Unref();
    }
  }

  static void OnReady(uv_poll_t* handle, int status, int /*events*/) {
    auto* w = static_cast<Watched*>(handle->data);
    FdPoller* self = w->owner;
    // One report per descriptor: the JavaScript side removes it (or keeps it, stopped).
    uv_poll_stop(handle);
    if (self->closed_) return;
    Napi::Env env = self->Env();
    Napi::HandleScope scope(env);
    self->callback_.MakeCallback(self->Value(), {Napi::Number::New(env, w->fd), Napi::Number::New(env, status)});
    if (env.IsExceptionPending()) {
      // No JavaScript frame to return to: hand it to process 'uncaughtException', as Node would.
      Napi::Error error = env.GetAndClearPendingException();
      napi_fatal_exception(env, error.Value());
    }
  }

  static void OnClosed(uv_handle_t* handle) {
    auto* w = static_cast<Watched*>(handle->data);
    FdPoller* self = w->owner;
    close(w->fd);  // never retried: after EINTR the descriptor is already released on Linux
    delete w;
    --self->closing_;
    self->MaybeDone();
  }

  static void OnTeardown(napi_async_cleanup_hook_handle /*handle*/, void* arg) {
    auto* self = static_cast<FdPoller*>(arg);
    self->closed_ = true;
    self->CloseAll();
  }

  uv_loop_t* loop_ = nullptr;
  Napi::FunctionReference callback_;
  std::unordered_map<int, Watched*> open_;
  size_t closing_ = 0;
  bool closed_ = false;
  bool referenced_ = false;
  napi_async_cleanup_hook_handle teardown_ = nullptr;
};

// exitHandle(pid) / hangupHandle(fd) -> a descriptor, or -errno (`out_of_range` for a number that
// cannot be one). A non-number is a TypeError.
Napi::Value OpenHandle(const Napi::CallbackInfo& info, const char* usage, double min, int out_of_range,
                       int (*open_handle)(int32_t)) {
  Napi::Env env = info.Env();
  int32_t value = 0;
  switch (IntArgument(info, min, &value)) {
    case Arg::kBadType:
      Napi::TypeError::New(env, usage).ThrowAsJavaScriptException();
      return env.Undefined();
    case Arg::kOutOfRange:
      return Napi::Number::New(env, out_of_range);
    case Arg::kOk:
      break;
  }
  return Napi::Number::New(env, open_handle(value));
}

Napi::Value ExitHandle(const Napi::CallbackInfo& info) {
  return OpenHandle(info, "exitHandle(pid: number)", 1, -EINVAL, OpenExitHandle);
}

Napi::Value HangupHandle(const Napi::CallbackInfo& info) {
  return OpenHandle(info, "hangupHandle(fd: number)", 0, -EBADF, OpenHangupHandle);
}

// openFileLimit() -> [soft, hard] (-1: unlimited), or -errno.
Napi::Value FileLimit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  double soft = 0;
  double hard = 0;
  const int rc = OpenFileLimit(&soft, &hard);
  if (rc != 0) return Napi::Number::New(env, rc);
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, Napi::Number::New(env, soft));
  out.Set(1u, Napi::Number::New(env, hard));
  return out;
}

}  // namespace

// Called from addon.cc's Init.
void RegisterExitWatch(Napi::Env env, Napi::Object exports) {
  exports.Set("FdPoller", FdPoller::Define(env));
  exports.Set("exitHandle", Napi::Function::New(env, ExitHandle, "exitHandle"));
  exports.Set("hangupHandle", Napi::Function::New(env, HangupHandle, "hangupHandle"));
  exports.Set("openFileLimit", Napi::Function::New(env, FileLimit, "openFileLimit"));
  exports.Set("exitMechanism", Napi::String::New(env, ExitMechanism()));
}

}  // namespace claude_ps
