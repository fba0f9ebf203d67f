"""Runs the article's reference script with its clock pinned, for the parity recording.

    python3 run-reference.py SCRIPT NOW < jobs.json        # jobs: [{"cwd": ..., "argv": [...]}, ...]
    python3 run-reference.py SCRIPT NOW --program ARGV...  # one run, in the current folder, as a program

SCRIPT is freeze_account.py (imported from where it is, never copied); NOW an ISO instant with a zone.
The script reads the clock as `datetime.now(timezone.utc)`; after importing it, the `datetime` and
`date` names it imported are replaced by subclasses whose now()/today() answer NOW, so the recording
does not depend on the day it was made. Nothing else of the script is touched.

The jobs form runs every job in this one interpreter (Python's start-up costs as much as the script's
work) and prints [{"code", "stdout", "stderr"}, ...]: the exit code `python3 SCRIPT ARGV...` would
have, SystemExit("message") being the message on stderr and 1, as Python itself does. The --program
form lets Python do that itself; parity-recording.test.ts checks that the two agree.
"""

import contextlib
import datetime as real_datetime
import importlib.util
import io
import json
import os
import sys
import traceback


def pinned(path, now):
    spec = importlib.util.spec_from_file_location("freeze_account", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("datetime", "date"):
        if getattr(module, name, None) is not getattr(real_datetime, name):
            raise SystemExit(
                f"run-reference.py: {path} no longer has `from datetime import {name}`: its clock cannot be"
                " pinned this way; update run-reference.py"
            )

    class PinnedDatetime(real_datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return now.astimezone(tz) if tz is not None else now.astimezone(real_datetime.timezone.utc).replace(tzinfo=None)

        @classmethod
        def utcnow(cls):
            return now.astimezone(real_datetime.timezone.utc).replace(tzinfo=None)

        @classmethod
        def today(cls):
            return cls.utcnow()

    class PinnedDate(real_datetime.date):
        @classmethod
        def today(cls):
            return now.astimezone(real_datetime.timezone.utc).date()

    module.datetime = PinnedDatetime
    module.date = PinnedDate
    return module


def run_jobs(module, path, jobs):
    results = []
    for job in jobs:
        os.chdir(job["cwd"])
        sys.argv = [path] + job["argv"]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = module.main()
            except SystemExit as exit:
                code = exit.code
                if code is None:
                    code = 0
                elif not isinstance(code, int):
                    print(code, file=sys.stderr)
                    code = 1
            except Exception:
                traceback.print_exc()
                code = 1
        results.append({"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
    return results


def main():
    if len(sys.argv) < 3:
        raise SystemExit("usage: run-reference.py SCRIPT NOW [--program ARGV...] (jobs as JSON on stdin)")
    path, now_text = sys.argv[1], sys.argv[2]
    now = real_datetime.datetime.fromisoformat(now_text.replace("Z", "+00:00"))
    if now.tzinfo is None:
        raise SystemExit(f"run-reference.py: NOW {now_text!r} has no zone; give one, e.g. 2026-03-01T12:00:00Z")
    module = pinned(path, now)
    if sys.argv[3:4] == ["--program"]:
        sys.argv = [path] + sys.argv[4:]
        raise SystemExit(module.main())
    json.dump(run_jobs(module, path, json.load(sys.stdin)), sys.__stdout__)


if __name__ == "__main__":
    main()
