"""Run the clusterplace CLI in a child process with a fault injected into the OS calls
it writes with: the process dies (``os._exit``, as abruptly as SIGKILL: no cleanup, no
flush) or a call fails with an errno, at the Nth call or for paths under a folder."""

from __future__ import annotations

import json
import subprocess
import sys

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
