{
  "targets": [
    {
      "target_name": "ec_sign",
      "sources": ["ec_sign.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
