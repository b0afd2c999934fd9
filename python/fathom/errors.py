"""The errors of the fathom package: one base class, and the two a caller may want to catch."""


class FathomError(Exception):
    """Bad input or a store that cannot be used: the message names the store and what is wrong."""


class SchemaTooNew(FathomError):
    """The store's schema version is newer than this package knows (docs/schema.md, versions)."""

    def __init__(self, shown, found, known):
        super().__init__(
            f"{shown}: run store has schema version {found}, newer than this fathom Python "
            f"package understands ({known}); use the package of a newer Fathom (nothing was "
            f"changed)")
        self.found = found
        self.known = known


class LeaseLost(FathomError):
    """A holder's write refused: the run is no longer this process's (db/lease.h).

    Raised by Run.log, Run.finish and Run.tag once the run was cancelled (`fathom cancel`),
    ended, requeued or taken by another worker since this process took it; nothing of the
    refused write reaches the store, and nothing more is written about the run.
    """

    def __init__(self, run, lease, status_now, lease_now):
        why = f"run {run} is no longer this process's (lease {lease}): it is {status_now}"
        if lease_now != lease:
            why += f" under lease {lease_now}, " + (
                "taken by another worker" if status_now == "running" else
                "requeued or taken since")
        super().__init__(why + "; nothing more is written")
        self.run = run
        self.lease = lease
        self.status_now = status_now
        self.lease_now = lease_now
