"""Fathom's run stores from Python (docs/python.md).

    import fathom
    store = fathom.open("fathom.db")            # or "postgresql://user@host/db"
    store.runs()                                # pandas: configs, statuses, final metrics
    store.metrics(12, ["train_loss", "valid_loss"])
    store.sweep("depth")

    run = fathom.init("fathom.db", {"train": {"lr": 1e-3}}, sweep="lr", axes=["train.lr"])
    run.log({"train_loss": 2.31, "lr": 1e-3}, step=10)
    run.finish()

Pure Python over the documented schema (docs/schema.md): sqlite3 from the standard library,
psycopg2 for PostgreSQL, pandas for tables.
"""
from ._schema import SCHEMA_VERSION
from .errors import FathomError, LeaseLost, SchemaTooNew
from .presentation import higher_is_better, presentation_of, presented_metrics
from .run import Run, init
from .store import Store, open  # noqa: A004 -- fathom.open

__version__ = "0.1.0"
__all__ = ["open", "init", "Store", "Run", "FathomError", "LeaseLost", "SchemaTooNew",
           "SCHEMA_VERSION", "presentation_of", "higher_is_better", "presented_metrics"]
