#ifndef VAULT_CKEYUTILS_SHIM_H
#define VAULT_CKEYUTILS_SHIM_H
#include <keyutils.h>
#include <stdlib.h>

/* The keyring ids are negative macros Swift imports as plain Int32 constants; named here for clarity. */
static inline key_serial_t vault_user_keyring(void) { return KEY_SPEC_USER_KEYRING; }
static inline key_serial_t vault_session_keyring(void) { return KEY_SPEC_SESSION_KEYRING; }
/* This user's processes (possessor and user) may view, read, write, search, link and set attributes; nobody else. */
static inline key_perm_t vault_private_permissions(void) { return KEY_POS_ALL | KEY_USR_ALL; }
#endif
