#ifndef VAULT_COPENSSL_SHIM_H
#define VAULT_COPENSSL_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <sys/prctl.h>

// prctl is variadic: Swift cannot call it. Used to keep key material out of core dumps.
static inline int vault_disable_core_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

#endif
