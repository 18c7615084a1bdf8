"""Faults injected into a child process running the clusterplace CLI (a process, since
they replace functions of ``os`` for the whole interpreter, or kill it):

- :func:`run_with_fault`: in the OS calls it writes with, the process dies
  (``os._exit``, as abruptly as SIGKILL: no cleanup, no flush) or a call fails with an
  errno, at the Nth call or for paths under a folder;
- :func:`unreadable_while`: a folder that cannot be read while a flag file exists (as
  ``chmod 000`` would make it for a user who is not root).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

__all__ = ["run_with_fault", "unreadable_while"]

_CHILD = r"""
import errno, json, os, sys
spec = json.loads(sys.argv[1])
calls = {"n": 0}
names = ("open", "write", "replace", "rename", "unlink", "fsync")
real = {name: getattr(os, name) for name in names}

writes = {"n": 0}

def hit(name, path=None):
    if name == "write" and spec.get("enospc_write_at"):
        writes["n"] += 1
        if writes["n"] >= spec["enospc_write_at"]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    if spec.get("die_at") is not None and name in ("write", "replace", "unlink", "fsync"):
        calls["n"] += 1
        if calls["n"] == spec["die_at"]:
            real["_exit"](137)
    under = spec.get("fail_under")
    if under and path is not None and os.fspath(path).startswith(under):
        if name in spec.get("fail_calls", ["open"]):
            raise OSError(spec["errno"], os.strerror(spec["errno"]), os.fspath(path))

real["_exit"] = os._exit

def wrap(name):
    def call(*args, **kwargs):
        hit(name, args[0] if args and isinstance(args[0], (str, bytes, os.PathLike)) else None)
        return real[name](*args, **kwargs)
    return call

for name in ("write", "replace", "rename", "unlink", "fsync"):
    setattr(os, name, wrap(name))

def open_(path, flags, *args, **kwargs):
    if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
        hit("open", path)
    return real["open"](path, flags, *args, **kwargs)

os.open = open_
import pathlib
real_mkdir = pathlib.Path.mkdir
def mkdir(self, *args, **kwargs):
    hit("mkdir", self)
    return real_mkdir(self, *args, **kwargs)
pathlib.Path.mkdir = mkdir
from clusterplace.cli.main import main
sys.exit(main(spec["argv"]))
"""


def run_with_fault(
    argv: list[str],
    *,
    die_at: int | None = None,
    fail_under: str | None = None,
    errno: int = 0,
    fail_calls: tuple[str, ...] = ("open", "mkdir"),
    cwd: str | None = None,
    enospc_write_at: int | None = None,
) -> subprocess.CompletedProcess[str]:
    spec = {
        "enospc_write_at": enospc_write_at,
        "argv": argv,
        "die_at": die_at,
        "fail_under": fail_under,
        "errno": errno,
        "fail_calls": list(fail_calls),
    }
    return subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(spec)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


# A child that runs the CLI with a folder made unreadable while a flag file exists:
# listing the folder, and looking at or opening anything under it, fail with EACCES, as
# ``chmod 000`` makes them fail for a user who is not root (the tests may run as root,
# whom permissions do not stop). The watcher (native code) is not affected.
_UNREADABLE_CHILD = r"""
import errno, os, sys
folder, flag = sys.argv[1], sys.argv[2]
real = {name: getattr(os, name) for name in ("scandir", "stat", "open")}

def out(path, inside_only):
    try:
        real["stat"](flag)
    except OSError:
        return False
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = text.decode()
    text = os.path.abspath(text)
    return text.startswith(folder + os.sep) or (not inside_only and text == folder)

def refuse(path):
    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))

def scandir(path="."):
    if out(path, False):
        refuse(path)
    return real["scandir"](path)

def stat(path, *args, **kwargs):
    if not isinstance(path, int) and out(path, True):
        refuse(path)
    return real["stat"](path, *args, **kwargs)

def open_(path, *args, **kwargs):
    if out(path, True):
        refuse(path)
    return real["open"](path, *args, **kwargs)

os.scandir, os.stat, os.open = scandir, stat, open_
from clusterplace.cli.main import main
sys.exit(main(sys.argv[3:]))
"""


def unreadable_while(folder: Path, flag: Path) -> list[str]:
    """The command that runs the CLI with ``folder`` unreadable while ``flag`` exists
    (arguments follow)."""
    return [sys.executable, "-c", _UNREADABLE_CHILD, str(folder.absolute()), str(flag)]
