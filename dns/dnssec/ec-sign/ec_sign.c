/*
 * ECDSA signatures of many items in one call (ECDSAP256SHA256, ECDSAP384SHA384), in DNSSEC's r||s form (RFC 6605),
 * with the OpenSSL that Node itself carries. node:crypto's sign() sets up a signing context per signature (looking up
 * the key's and the digest's implementations each time): for a zone's hundred thousand RRSIGs that is a third of the
 * work. Here a key's context is set up once and kept; each item is hashed, signed, and its DER signature turned
 * into r||s.
 *
 *   openKey(pkcs8: Buffer, digest: 'sha256' | 'sha384', half: 32 | 48) -> key (an external value)
 *   sign(key, data: Uint8Array, lengths: Uint32Array, out: Uint8Array) -> undefined
 *     the items are data's bytes back to back, lengths[i] long each; signature i goes to out at i * 2 * half
 */
#include <node_api.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  EVP_PKEY *pkey;
  EVP_PKEY_CTX *ctx;
  const EVP_MD *md;
  size_t half;
} Key;

/* Throws `message`, leaving no OpenSSL error behind (node:crypto reads that queue after its own calls). */
static napi_value fail(napi_env env, const char *message) {
  ERR_clear_error();
  napi_throw_error(env, NULL, message);
  return NULL;
}

static void release(napi_env env, void *data, void *hint) {
  Key *key = data;
  EVP_PKEY_CTX_free(key->ctx);
  EVP_PKEY_free(key->pkey);
  free(key);
}

static napi_value open_key(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3) return fail(env, "openKey(pkcs8, digest, half)");
  void *der;
  size_t der_length;
  bool is_buffer = false;
  napi_is_buffer(env, argv[0], &is_buffer);
  if (!is_buffer || napi_get_buffer_info(env, argv[0], &der, &der_length) != napi_ok) return fail(env, "the key must be a Buffer");
  char digest[16];
  size_t digest_length;
  if (napi_get_value_string_utf8(env, argv[1], digest, sizeof digest, &digest_length) != napi_ok) return fail(env, "the digest must be a string");
  uint32_t half;
  if (napi_get_value_uint32(env, argv[2], &half) != napi_ok) return fail(env, "half must be a number");
  const EVP_MD *md = strcmp(digest, "sha256") == 0 ? EVP_sha256() : strcmp(digest, "sha384") == 0 ? EVP_sha384() : NULL;
  if (md == NULL || (half != 32 && half != 48)) return fail(env, "unsupported digest or size");
  const unsigned char *p = der;
  EVP_PKEY *pkey = d2i_AutoPrivateKey(NULL, &p, (long)der_length);
  if (pkey == NULL) return fail(env, "not a private key in PKCS#8 DER");
  if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_EC || (size_t)EVP_PKEY_get_bits(pkey) != half * 8) {
    EVP_PKEY_free(pkey);
    return fail(env, "not an EC key of that size");
  }
  EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(pkey, NULL);
  if (ctx == NULL || EVP_PKEY_sign_init(ctx) <= 0) {
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(pkey);
    return fail(env, "cannot sign with this key");
  }
  Key *key = malloc(sizeof *key);
  if (key == NULL) {
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(pkey);
    return fail(env, "out of memory");
  }
  key->pkey = pkey;
  key->ctx = ctx;
  key->md = md;
  key->half = half;
  napi_value external;
  if (napi_create_external(env, key, release, NULL, &external) != napi_ok) {
    release(env, key, NULL);
    return fail(env, "cannot keep the key");
  }
  return external;
}

/* The bytes of a typed array (Buffer, Uint8Array, Uint32Array), with its element count. */
static bool bytes_of(napi_env env, napi_value value, napi_typedarray_type want, void **data, size_t *count) {
  bool is_typedarray = false;
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  if (napi_is_typedarray(env, value, &is_typedarray) != napi_ok || !is_typedarray) return false;
  if (napi_get_typedarray_info(env, value, &type, count, data, &buffer, &offset) != napi_ok) return false;
  return type == want;
}

static napi_value sign(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 4) return fail(env, "sign(key, data, lengths, out)");
  Key *key;
  if (napi_get_value_external(env, argv[0], (void **)&key) != napi_ok) return fail(env, "not a key of openKey");
  void *data, *lengths, *out;
  size_t data_length, count, out_length;
  if (!bytes_of(env, argv[1], napi_uint8_array, &data, &data_length)) return fail(env, "data must be a Uint8Array");
  if (!bytes_of(env, argv[2], napi_uint32_array, &lengths, &count)) return fail(env, "lengths must be a Uint32Array");
  if (!bytes_of(env, argv[3], napi_uint8_array, &out, &out_length)) return fail(env, "out must be a Uint8Array");
  const uint32_t *length = lengths;
  size_t total = 0;
  for (size_t i = 0; i < count; i++) total += length[i];
  if (total > data_length) return fail(env, "the lengths add up to more than the data");
  if (out_length < count * 2 * key->half) return fail(env, "out is too short for the signatures");
  const unsigned char *item = data;
  unsigned char *signature = out;
  unsigned char hash[EVP_MAX_MD_SIZE];
  unsigned char der[160];
  for (size_t i = 0; i < count; i++) {
    unsigned int hash_length;
    if (EVP_Digest(item, length[i], hash, &hash_length, key->md, NULL) != 1) return fail(env, "digest failed");
    item += length[i];
    size_t der_length = sizeof der;
    if (EVP_PKEY_sign(key->ctx, der, &der_length, hash, hash_length) <= 0) return fail(env, "signing failed");
    const unsigned char *p = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)der_length);
    if (sig == NULL) return fail(env, "signing gave no ECDSA signature");
    const BIGNUM *r, *s;
    ECDSA_SIG_get0(sig, &r, &s);
    int ok = BN_bn2binpad(r, signature, (int)key->half) > 0 && BN_bn2binpad(s, signature + key->half, (int)key->half) > 0;
    ECDSA_SIG_free(sig);
    if (!ok) return fail(env, "a signature does not fit its size");
    signature += 2 * key->half;
  }
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "openKey", NAPI_AUTO_LENGTH, open_key, NULL, &fn);
  napi_set_named_property(env, exports, "openKey", fn);
  napi_create_function(env, "sign", NAPI_AUTO_LENGTH, sign, NULL, &fn);
  napi_set_named_property(env, exports, "sign", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
