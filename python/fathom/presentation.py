"""How each metric is presented -- shown by default, smoothed, log axis, unit, which way is
better -- read from the table the desktop app, reports and tables use (db/metric_presentation.h),
shipped as metric_presentation.json (`fathom --json metrics`; scripts/check/metric-table.sh keeps
it current). A name resolves as there: its own row, else its family's (a row ending in '.'
covers every name it starts), else by its parts.

    fathom.presentation_of("valid_ppl")   # {'shown': True, 'log_axis': True, ...}
    fathom.higher_is_better("test_bleu")  # True; None for a rate, a norm, a count
"""
import json
import os

_TABLE = None


def presented_metrics():
    """The table's rows, in the order metric lists show them."""
    global _TABLE
    if _TABLE is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "metric_presentation.json")
        with open(path, encoding="utf-8") as f:
            _TABLE = json.load(f)
    return _TABLE


def _by_parts(name):
    """For names no row lists: an evaluation is drawn as it is, BLEU is shown, BLEU and
    accuracies are better higher, losses, perplexities and bits per byte lower."""
    bleu = "bleu" in name
    better = None
    if bleu or "acc" in name:
        better = True
    elif any(part in name for part in ("loss", "ppl", "nll", "bpb")):
        better = False
    return {"name": name, "shown": bleu,
            "smoothed": not (bleu or name.startswith("valid_") or name.startswith("test_")),
            "log_axis": False, "unit": "", "higher_is_better": better,
            "group": _group(name)}


def _group(name):
    """The metric list's group: System (sys.*), Curvature (curvature.*) or none."""
    if name.startswith("sys."):
        return "System"
    return "Curvature" if name.startswith("curvature.") else ""


def presentation_of(name):
    """A dict: shown, smoothed, log_axis, unit, higher_is_better (True, False or None), group;
    `name` is the metric asked for."""
    for row in presented_metrics():
        key = row["name"]
        if key == name or (key.endswith(".") and name.startswith(key)):
            return dict(row, name=name)
    return _by_parts(name)


def higher_is_better(name):
    return presentation_of(name)["higher_is_better"]
