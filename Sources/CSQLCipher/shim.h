#ifndef VAULT_CSQLCIPHER_SHIM_H
#define VAULT_CSQLCIPHER_SHIM_H

// sqlite3_key / sqlite3_rekey are declared only when SQLITE_HAS_CODEC is defined.
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer: Swift cannot import it.
static inline sqlite3_destructor_type vault_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
