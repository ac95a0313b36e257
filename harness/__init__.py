"""What the tests and the benchmarks start and share: ports, app servers, nginx, Redis keys, PostgreSQL.

Not part of the service (the wheel ships ``service`` alone): ``tests/`` import it as
``harness`` (pytest's ``pythonpath``), each bench puts the repository's root on
``sys.path`` first.

* :mod:`.ports` — free ports on 127.0.0.1, anywhere or in a range;
* :mod:`.servers` — the app under gunicorn (``gunicorn.conf.py``) on a port, its workers, its CPU time;
* :mod:`.nginx` — nginx in front of app servers, as deployed (``deploy/stack.py``);
* :mod:`.redis` — a key prefix of one's own on the shared Redis, and its clean-up;
* :mod:`.postgres` — scratch databases on the shared server, and a private cluster of one's own.

A server or cluster started here is stopped here, by the object that started it:
nothing in this package stops a process it did not start.
"""

from pathlib import Path

#: The repository's root: where gunicorn.conf.py and the migrations are.
ROOT = Path(__file__).resolve().parent.parent
