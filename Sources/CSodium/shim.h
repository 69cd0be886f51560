#ifndef SSVC_CSODIUM_SHIM_H
#define SSVC_CSODIUM_SHIM_H

#include <sodium/core.h>
#include <sodium/crypto_auth_hmacsha256.h>
#include <sodium/crypto_generichash.h>
#include <sodium/crypto_sign.h>

#endif
