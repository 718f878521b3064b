{
  "targets": [
    {
      "target_name": "kinetoscope_native",
      "sources": ["native/fast-events.cc"],
      "cflags_cc": ["-O3", "-std=c++17"],
      "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": ["-O3", "-std=c++17"] },
      "msvs_settings": { "VCCLCompilerTool": { "Optimization": 2, "AdditionalOptions": ["/std:c++17"] } }
    }
  ]
}
