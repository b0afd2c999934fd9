"""A run's config as the store keeps it: checked JSON (config_json) and YAML (config_yaml).

Values must be what JSON holds: mappings with string keys, lists, strings, numbers, booleans and
None. Scalars of numpy or torch (anything with .item()) become plain numbers; tuples become
lists. Anything else is refused naming its key. The YAML is for people (`fathom show`): every
scalar is written as JSON, which YAML reads as the same value.
"""
import json
import math

from .errors import FathomError


def plain(value, key="config"):
    """`value` with only JSON types; FathomError naming the dotted key of a value that is not."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str) or not k:
                raise FathomError(f"{key}: keys must be non-empty strings, not {k!r}")
            if "." in k:
                raise FathomError(f"{key}.{k}: a key may not hold '.' (dotted names are how "
                                  "tables and filters address nested keys); nest a mapping")
            out[k] = plain(v, f"{key}.{k}" if key != "config" else k)
        return out
    if isinstance(value, (list, tuple)):
        return [plain(v, f"{key}[{i}]") for i, v in enumerate(value)]
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise FathomError(f"{key}: {value} is not a finite number")
        return value
    item = getattr(value, "item", None)
    if callable(item):
        try:
            return plain(item(), key)
        except (TypeError, ValueError):
            pass
    raise FathomError(f"{key}: a value of type {type(value).__name__} cannot be stored in a "
                      "config (use strings, numbers, booleans, lists and mappings)")


def to_yaml(config, indent=0):
    """Block-style YAML of a plain mapping; lists and scalars in flow style (JSON)."""
    lines = []
    pad = "  " * indent
    for key, value in config.items():
        name = key if _bare(key) else json.dumps(key)
        if isinstance(value, dict) and value:
            lines.append(f"{pad}{name}:")
            lines.append(to_yaml(value, indent + 1))
        else:
            lines.append(f"{pad}{name}: {json.dumps(value)}")
    return "\n".join(line for line in lines if line)


def _bare(key):
    return key.replace("_", "a").replace("-", "a").isalnum() and not key[0].isdigit()
