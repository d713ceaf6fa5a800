"""scripts/catalogs --check: every {placeholder} a message names is given where the code asks for it. Reads each
tr/trn/trc call of the Swift sources (a heuristic reader of call text, not a Swift parser): the names in its English
literals must be keys of its literal values (trn gives {n} itself). A call whose values are not a literal is passed
over. Prints each miss and exits 1, so a sentence never shows a raw "{count}" to a student."""
import glob
import re
import sys

CALL = re.compile(r"\b(tr|trn|trc)\(")
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
misses = 0
for path in sorted(glob.glob("Sources/**/*.swift", recursive=True)):
    text = open(path, encoding="utf-8").read()
    for match in CALL.finditer(text):
        if text[max(0, match.start() - 5):match.start()].endswith("func "):
            continue
        depth, index, quoted = 1, match.end(), False
        while depth and index < len(text):
            char = text[index]
            if quoted:
                if char == "\\":
                    index += 2
                    continue
                quoted = char != '"'
            elif char == '"':
                quoted = True
            elif char in "([":
                depth += char == "("
            elif char == ")":
                depth -= 1
            index += 1
        call = text[match.end():index - 1]
        literals = LITERAL.findall(call)
        kind = match.group(1)
        first = 1 if kind == "trc" else 0
        messages = literals[first:first + (2 if kind == "trn" else 1)]
        if not messages:
            continue
        after = call[call.rfind('"' + messages[-1] + '"') + len(messages[-1]) + 2:]
        if after.strip(" ,\n") and "[" not in after:
            continue  # values given by a variable
        wanted = {name for message in messages for name in re.findall(r"\{([a-z_]+)\}", message)}
        given = set(re.findall(r'"([a-z_]+)":', after)) | ({"n"} if kind == "trn" else set())
        for name in sorted(wanted - given):
            line = text.count("\n", 0, match.start()) + 1
            print(f"{path}:{line}: {{{name}}} is never given: {messages[0][:70]!r}", file=sys.stderr)
            misses += 1
sys.exit(1 if misses else 0)
