/* A real N-API addon for the node runtime's tests (tests/plugins/node_runtime_test.cc): add(a, b)
 * and the N-API version it was loaded under. Built against libnode's own headers. */
#include <node_api.h>

static napi_value Add(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2];
  double a = 0, b = 0;
  napi_value result;
  if (napi_get_cb_info(env, info, &argc, args, NULL, NULL) != napi_ok || argc < 2) return NULL;
  napi_get_value_double(env, args[0], &a);
  napi_get_value_double(env, args[1], &b);
  napi_create_double(env, a + b, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value add;
  napi_value version;
  uint32_t napi = 0;
  napi_create_function(env, "add", NAPI_AUTO_LENGTH, Add, NULL, &add);
  napi_set_named_property(env, exports, "add", add);
  napi_get_version(env, &napi);
  napi_create_uint32(env, napi, &version);
  napi_set_named_property(env, exports, "napiVersion", version);
  return exports;
}
