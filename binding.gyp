{
  "targets": [
    {
      "target_name": "claude_ps",
      "sources": ["native/addon.cc", "native/read_posix.cc", "native/exit_poller.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags_cc": ["-O2", "-std=c++17", "-Wall", "-Wextra"],
      "conditions": [
        ["OS=='linux'", { "sources": ["native/probe_linux.cc", "native/exit_linux.cc"] }],
        ["OS=='mac'", {
          "sources": ["native/probe_darwin.cc", "native/exit_darwin.cc"],
          "xcode_settings": {
            "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
            "GCC_OPTIMIZATION_LEVEL": "2",
            "MACOSX_DEPLOYMENT_TARGET": "11.0",
            "WARNING_CFLAGS": ["-Wall", "-Wextra"],
            "OTHER_CFLAGS": ["-arch x86_64", "-arch arm64"],
            "OTHER_LDFLAGS": ["-arch x86_64", "-arch arm64"]
          }
        }],
        ["OS=='win'", {
          "sources!": ["native/read_posix.cc", "native/exit_poller.cc"],
          "sources": ["native/probe_win32.cc", "native/read_win32.cc", "native/exit_win32.cc"],
          "defines": ["WIN32_LEAN_AND_MEAN", "NOMINMAX"],
          "msvs_settings": { "VCCLCompilerTool": { "AdditionalOptions": ["/std:c++17"] } }
        }]
      ]
    }
  ]
}
