"""_located.py: a dict given in place of a file is written as JSON text for
the library, whose messages then cite a line and a column of text the user
never saw.  dumps() writes exactly json.dumps(obj, indent=1) and records
where each key and value lies; relocate() turns "<mapping>:68:4: ..." into
"<mapping> at mapping[1][1]: ...", the place in the user's dict."""
import json
import re


def _name(key):
    """A path step: .key for a plain name, ["key"] otherwise."""
    return "." + key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else f"[{json.dumps(key)}]"


def dumps(obj):
    """(text, spans): text is json.dumps(obj, indent=1); spans lists
    (start, end, path) of every value and key, offsets into text."""
    out, spans, pos = [], [], [0]

    def put(s):
        out.append(s)
        pos[0] += len(s)

    def value(v, path, depth):
        start = pos[0]
        pad = "\n" + " " * (depth + 1)
        if isinstance(v, dict) and v:
            put("{")
            for k, (key, item) in enumerate(v.items()):
                put(("," if k else "") + pad)
                kstart = pos[0]
                put(json.dumps(str(key)) + ": ")
                spans.append((kstart, pos[0], path + _name(str(key))))
                value(item, path + _name(str(key)), depth + 1)
            put("\n" + " " * depth + "}")
        elif isinstance(v, (list, tuple)) and v:
            put("[")
            for k, item in enumerate(v):
                put(("," if k else "") + pad)
                value(item, f"{path}[{k}]", depth + 1)
            put("\n" + " " * depth + "]")
        else:
            put(json.dumps(v))
        spans.append((start, pos[0], path))

    value(obj, "", 0)
    return "".join(out), spans


def relocate(message, label, text, spans):
    """The library's message with "label:LINE:COL: " replaced by
    "label at PATH: ", PATH the innermost key or value of the dict there."""
    m = re.match(re.escape(label) + r":(\d+):(\d+): (.*)", message, re.S)
    if not m:
        return message
    line, col = int(m.group(1)), int(m.group(2))
    starts = [0] + [k + 1 for k, c in enumerate(text) if c == "\n"]
    if line > len(starts):
        return message
    at = starts[line - 1] + col - 1
    inside = [s for s in spans if s[0] <= at < max(s[1], s[0] + 1)]
    if not inside:  # past the end of a line: the last thing that starts before
        before = [s for s in spans if s[0] <= at]
        inside = [max(before, key=lambda s: (s[0], -s[1]))] if before else []
    if not inside:
        return message
    path = min(inside, key=lambda s: s[1] - s[0])[2].lstrip(".")
    return f"{label} at {path or 'the top level'}: {m.group(3)}"
