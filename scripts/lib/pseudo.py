"""The pseudo-language qps, for tests (msgfilter runs this on every message): each letter accented, the message 40%
longer, so a test sees at once any English left untranslated and any line that would not fit. {placeholders} and
`commands` stay as they are: the code fills the one, the student types the other."""
import re
import sys

ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "àƀçđéƒĝĥíĵķĺɱñóþǫŕšţúʋŵẋýžÀƁÇĐÉƑĜĤÍĴĶĹṀÑÓÞǪŔŠŢÚṼŴẊÝŽ",
)
KEPT = re.compile(r"(\{[a-z_]+\}|`[^`]*`|\[[yYnN]/[yYnN]\])")

text = sys.stdin.read()
if text:
    parts = KEPT.split(text)
    body = "".join(part if KEPT.fullmatch(part) else part.translate(ACCENTED) for part in parts)
    letters = sum(1 for part in parts if not KEPT.fullmatch(part) for c in part if c.isalpha())
    sys.stdout.write("⟦" + body + " " + "·" * max(1, (letters * 2) // 5) + "⟧")
