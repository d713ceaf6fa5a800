#ifndef VAULT_CGETTEXT_SHIM_H
#define VAULT_CGETTEXT_SHIM_H
/* glibc's own gettext (no libintl to link) and setlocale: the only way to messages in the student's language on
   Linux, where Foundation's localization does not work. */
#include <libintl.h>
#include <locale.h>
#endif
