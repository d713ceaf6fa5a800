"""Run by msgexec on every message of a catalog (scripts/catalogs --check): the translation's {placeholders} must be
the English's, none missing and none made up (the count {n} may stay unwritten in a plural form that names its number
in words, such as Arabic's "two questions"). Exits 1 with the message named."""
import os
import re
import sys

PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
english = os.environ.get("MSGEXEC_MSGID_PLURAL") or os.environ.get("MSGEXEC_MSGID", "")
if not os.environ.get("MSGEXEC_MSGID"):
    sys.exit(0)  # the header
translation = sys.stdin.read()
wanted = set(PLACEHOLDER.findall(english))
given = set(PLACEHOLDER.findall(translation))
if os.environ.get("MSGEXEC_PLURAL_FORM"):
    wanted.discard("n")
    given.discard("n")
if wanted != given:
    print(f"{os.environ.get('MSGEXEC_LOCATION', '')}: {english!r}: the translation has {sorted(given)}, the English {sorted(wanted)}", file=sys.stderr)
    sys.exit(1)
