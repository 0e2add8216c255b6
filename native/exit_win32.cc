// Exit notification on Windows, with the same JavaScript shape as exit_poller.cc (lib/backend/exits.ts):
// exitHandle(pid) opens the process with SYNCHRONIZE and returns a key for the handle; a poller's
// add(key) hands the handle to RegisterWaitForSingleObject, whose thread-pool callback queues the key
// on a threadsafe function; the key is reported on Node's own thread, once, unless it was removed in
// between. Keys only grow, so a late report can never name a handle opened since. The threadsafe
// function is unreferenced: a watch never keeps the process alive.
#include <napi.h>

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace claude_ps {
namespace {

// Handles opened by exitHandle and not yet given to a poller (or closed by closeExitHandle).
std::mutex g_mutex;
std::unordered_map<int32_t, HANDLE> g_unclaimed;
int32_t g_next_key = 1;

int ErrnoOf(DWORD error) {
  switch (error) {
    case ERROR_INVALID_PARAMETER: return ESRCH;
    case ERROR_ACCESS_DENIED: return EPERM;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_NO_SYSTEM_RESOURCES: return EMFILE;
    default: return EINVAL;
  }
}

HANDLE TakeUnclaimed(int32_t key) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_unclaimed.find(key);
  if (it == g_unclaimed.end()) return nullptr;
  HANDLE h = it->second;
  g_unclaimed.erase(it);
  return h;
}

class FdPoller;

struct Watched {
  FdPoller* owner;
  int32_t key;
  HANDLE process;
  HANDLE wait = nullptr;
};

// new FdPoller(onReady: (key: number, status: number) => void)
//   add(key) -> 0 | -errno   takes the handle: closed on remove(), close() or failure
//   remove(key) -> boolean   close() -> undefined   size -> open handles
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
    callback_ = Napi::Persistent(info[0].As<Napi::Function>());
    napi_value name = Napi::String::New(env, "claude-ps exit watch");
    if (napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, nullptr, nullptr, this, CallJs, &tsfn_) != napi_ok) {
      tsfn_ = nullptr;
      Napi::Error::New(env, "FdPoller: cannot create a threadsafe function").ThrowAsJavaScriptException();
      return;
    }
    napi_unref_threadsafe_function(env, tsfn_);
    napi_add_env_cleanup_hook(env, OnTeardown, this);
    hooked_ = true;
  }

  ~FdPoller() override {
    CloseAll();
    if (hooked_) napi_remove_env_cleanup_hook(Env(), OnTeardown, this);
  }

 private:
  Napi::Value Add(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() != 1 || !info[0].IsNumber()) {
      Napi::TypeError::New(env, "add(key: number)").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    const int32_t key = info[0].As<Napi::Number>().Int32Value();
    if (open_.count(key) != 0) return Napi::Number::New(env, -EEXIST);
    HANDLE process = TakeUnclaimed(key);
    if (process == nullptr) return Napi::Number::New(env, -EBADF);
    if (closed_ || tsfn_ == nullptr) {
      CloseHandle(process);
      return Napi::Number::New(env, -EBADF);
    }
    auto* w = new Watched{this, key, process};
    if (!RegisterWaitForSingleObject(&w->wait, process, OnSignaled, w, INFINITE, WT_EXECUTEONLYONCE)) {
      const int err = ErrnoOf(GetLastError());
      CloseHandle(process);
      delete w;
      return Napi::Number::New(env, -err);
    }
    open_[key] = w;
    // Held while it holds handles, as exit_poller.cc's poller is: the waits outlive no object.
    if (!referenced_) {
      Ref();
      referenced_ = true;
    }
    return Napi::Number::New(env, 0);
  }

  Napi::Value Remove(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() != 1 || !info[0].IsNumber()) {
      Napi::TypeError::New(env, "remove(key: number)").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    auto it = open_.find(info[0].As<Napi::Number>().Int32Value());
    if (it == open_.end()) return Napi::Boolean::New(env, false);
    Watched* w = it->second;
    open_.erase(it);
    Release(w);
    MaybeUnref();
    return Napi::Boolean::New(env, true);
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    CloseAll();
    return info.Env().Undefined();
  }

  Napi::Value Size(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(open_.size()));
  }

  // INVALID_HANDLE_VALUE: returns only once a callback already running has finished, so no callback
  // touches `w` (or the threadsafe function) after this.
  static void Release(Watched* w) {
    UnregisterWaitEx(w->wait, INVALID_HANDLE_VALUE);
    CloseHandle(w->process);
    delete w;
  }

  void MaybeUnref() {
    if (open_.empty() && referenced_) {
      referenced_ = false;
      Unref();
    }
  }

  void CloseAll() {
    closed_ = true;
    for (auto& entry : open_) Release(entry.second);
    open_.clear();
    if (tsfn_ != nullptr) {
      napi_release_threadsafe_function(tsfn_, napi_tsfn_abort);
      tsfn_ = nullptr;
    }
    MaybeUnref();
  }

  // A thread-pool thread: the process ended. Only the key crosses threads.
  static void CALLBACK OnSignaled(void* arg, BOOLEAN /*timed_out*/) {
    auto* w = static_cast<Watched*>(arg);
    napi_call_threadsafe_function(w->owner->tsfn_, reinterpret_cast<void*>(static_cast<intptr_t>(w->key)),
                                  napi_tsfn_nonblocking);
  }

  // Node's thread. A key removed after its report was queued is dropped here.
  static void CallJs(napi_env env, napi_value /*js_callback*/, void* context, void* data) {
    if (env == nullptr) return;
    auto* self = static_cast<FdPoller*>(context);
    const int32_t key = static_cast<int32_t>(reinterpret_cast<intptr_t>(data));
    if (self->closed_ || self->open_.count(key) == 0) return;
    Napi::Env e(env);
    Napi::HandleScope scope(e);
    self->callback_.MakeCallback(self->Value(), {Napi::Number::New(e, key), Napi::Number::New(e, 0)});
    if (e.IsExceptionPending()) {
      Napi::Error error = e.GetAndClearPendingException();
      napi_fatal_exception(env, error.Value());
    }
  }

  static void OnTeardown(void* arg) {
    auto* self = static_cast<FdPoller*>(arg);
    self->hooked_ = false;
    self->CloseAll();
  }

  Napi::FunctionReference callback_;
  std::unordered_map<int32_t, Watched*> open_;
  napi_threadsafe_function tsfn_ = nullptr;
  bool closed_ = false;
  bool hooked_ = false;
  bool referenced_ = false;
};

// exitHandle(pid) -> a key, or -errno (-ESRCH: no such process; -EPERM: not ours to wait on).
Napi::Value ExitHandle(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "exitHandle(pid: number)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const double value = info[0].As<Napi::Number>().DoubleValue();
  if (!(value >= 1) || value > 2147483647.0 || value != std::floor(value)) return Napi::Number::New(env, -EINVAL);
  const DWORD pid = static_cast<DWORD>(value);
  HANDLE h = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
  if (h == nullptr) return Napi::Number::New(env, -ErrnoOf(GetLastError()));
  // OpenProcess ignores a PID's two low bits: a handle on another process is no handle on this PID.
  if (GetProcessId(h) != pid) {
    CloseHandle(h);
    return Napi::Number::New(env, -ESRCH);
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_next_key == INT32_MAX) {
    CloseHandle(h);
    return Napi::Number::New(env, -EMFILE);
  }
  const int32_t key = g_next_key++;
  g_unclaimed[key] = h;
  return Napi::Number::New(env, key);
}

// closeExitHandle(key) -> boolean: closes a handle exitHandle opened that no poller took.
Napi::Value CloseExitHandle(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "closeExitHandle(key: number)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  HANDLE h = TakeUnclaimed(info[0].As<Napi::Number>().Int32Value());
  if (h != nullptr) CloseHandle(h);
  return Napi::Boolean::New(env, h != nullptr);
}

// hangupHandle(fd): Windows has no readiness for a pipe's reader going away; -ENOSYS, and the caller
// does without (lib/backend/exits.ts watchHangup).
Napi::Value HangupHandle(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "hangupHandle(fd: number)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Number::New(env, -ENOSYS);
}

}  // namespace

// Called from addon.cc's Init.
void RegisterExitWatch(Napi::Env env, Napi::Object exports) {
  exports.Set("FdPoller", FdPoller::Define(env));
  exports.Set("exitHandle", Napi::Function::New(env, ExitHandle, "exitHandle"));
  exports.Set("closeExitHandle", Napi::Function::New(env, CloseExitHandle, "closeExitHandle"));
  exports.Set("hangupHandle", Napi::Function::New(env, HangupHandle, "hangupHandle"));
  exports.Set("exitMechanism", Napi::String::New(env, "RegisterWaitForSingleObject"));
}

}  // namespace claude_ps
