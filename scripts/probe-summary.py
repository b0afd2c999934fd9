#!/usr/bin/env python3
"""The training probes' last point (docs/probes.md) of a sweep's finished runs, summarised per
method (model.norm / model.connection / model.attention_gate / train.optimizer, those the
sweep varies) x depth
(encoder layers, or a language model's decoder layers) x learning rate: the mean
over the seeds +- the half-width of the 95 % Student-t interval. Each run's value is one number
per probe: the max over positions ("max"), their mean ("mean"), or the mean over positions whose
label starts with a prefix ("mean:enc." = encoder self-attention); "@first" reads the first
probe point instead. Values decoded as docs/schema.md says (base64 little-endian float32).
Usage: scripts/probe-summary.py STORE.db SWEEP   (Markdown table on stdout; stdlib only)"""
import base64, json, math, sqlite3, statistics, struct, sys
from collections import defaultdict

T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776}
db, sweep = sys.argv[1], sys.argv[2]
con = sqlite3.connect(db)
tags = defaultdict(dict)
for rid, k, v in con.execute(
        "select t.run_id, t.key, t.value from run_tags t join runs r on r.id = t.run_id "
        "where r.sweep = ? and r.status = 'finished' and t.key like 'axis.%'", (sweep,)):
    tags[rid][k[5:]] = v

def last(rid, probe, first=False):
    row = con.execute("select vals from probe_points where run_id=? and probe=? "
                      "order by step %s limit 1" % ("asc" if first else "desc"),
                      (rid, probe)).fetchone()
    if row is None: return None
    raw = base64.b64decode(row[0])
    return list(struct.unpack("<%df" % (len(raw) // 4), raw))

def labels(rid, probe):
    row = con.execute("select positions from probe_layouts where run_id=? and probe=?",
                      (rid, probe)).fetchone()
    return row[0].split("\n") if row else []

def config_depth(rid):
    """The depth a sweep sets rather than varies, from the run's stored config."""
    row = con.execute("select config_json from runs where id=?", (rid,)).fetchone()
    try:
        model = json.loads(row[0]).get("model", {})
    except (TypeError, ValueError):
        return "0"
    if model.get("arch") == "decoder_only": return str(model.get("decoder_layers", 0))
    return str(model.get("encoder_layers", 0))

def stat(rid, what):
    probe, how = what
    v = last(rid, probe, how.endswith("@first"))
    how = how.replace("@first", "")
    if v is None: return None
    if how == "max": return max(v)
    if how == "mean": return sum(v) / len(v)
    # "mean:SUB": mean over the positions whose label contains SUB
    sub = how.split(":", 1)[1]
    sel = [x for x, l in zip(v, labels(rid, probe)) if l.startswith(sub)]
    return sum(sel) / len(sel) if sel else None

STATS = [("attn.max_logit", "max@first"), ("attn.max_logit", "max"),
         ("attn.first_key_mass", "mean:enc."), ("attn.first_key_mass", "mean"),
         ("attn.first_key_mass", "max"), ("stream.kurtosis", "max"),
         ("stream.max_over_median", "max"), ("stream.token_cosine", "max"), ("hc.gain", "max")]
cells = defaultdict(lambda: defaultdict(list))
for rid, t in tags.items():
    # The method: whichever of norm / connection / gate the sweep varies (a language-model
    # sweep has no model.norm axis, and its depth is model.decoder_layers).
    method = " / ".join(t[k] for k in ("model.norm", "model.connection", "model.attention_gate",
                                       "train.optimizer") if k in t)
    layers = t.get("model.encoder_layers", t.get("model.decoder_layers")) or config_depth(rid)
    key = (method, int(layers), t["train.lr"])
    for s in STATS:
        x = stat(rid, s)
        if x is not None: cells[key][s].append(x)

print("| row | layers | lr | " + " | ".join(p + " " + h for p, h in STATS) + " |")
print("|---|---:|---:|" + "---:|" * len(STATS))
for key in sorted(cells):
    out = []
    for s in STATS:
        # A probe can read inf or nan (a diverging run): counted apart, never averaged in.
        xs = [x for x in cells[key][s] if math.isfinite(x)]
        odd = len(cells[key][s]) - len(xs)
        note = " (%d non-finite)" % odd if odd else ""
        if not xs: out.append("--" + note); continue
        m = statistics.mean(xs)
        ci = T975[len(xs) - 1] * statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else 0
        out.append("%.3g ± %.2g (n=%d)%s" % (m, ci, len(xs), note))
    print("| %s | %d | %s | %s |" % (key[0], key[1], key[2], " | ".join(out)))
