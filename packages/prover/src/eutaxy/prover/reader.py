"""The reader bridge: spec files in, :class:`eutaxy.spec.SpecModule` out.

One Node process reads every file it is given on the pinned typescript
package's compiler API (``reader/reader.mjs``), so binder types are what the
user's compiler resolves. A file the compiler cannot read at all comes back as
a :class:`ReadError`, never as an empty module.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Sequence, Union

import attrs

from eutaxy.spec import SpecModule

from .node import SCRIPTS_DIR, NodeError, NodeToolchain, script_env

#: Reading compiles each file with its imports and the standard library; a
#: read that takes longer than this is a hung compiler, not a slow one.
READ_TIMEOUT_S = 300


@attrs.frozen(kw_only=True)
class ReadError:
    spec: str
    message: str

    def to_data(self) -> dict:
        return {"kind": "read_error", "spec": self.spec, "message": self.message}


def read_specs(paths: Sequence[str | Path], toolchain: NodeToolchain) -> list[Union[SpecModule, ReadError]]:
    """Read each spec file into SpecIR, in the order given."""
    if not paths:
        return []
    args = [str(toolchain.node), str(SCRIPTS_DIR / "reader.mjs"), *[str(Path(p).resolve()) for p in paths]]
    done = subprocess.run(args, env=script_env(toolchain), capture_output=True, text=True,
                          encoding="utf-8", timeout=READ_TIMEOUT_S)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0 or len(lines) != len(paths):
        raise NodeError(f"reader exited {done.returncode} after {len(lines)} of {len(paths)} files: {done.stderr[-2000:]}")
    out: list[Union[SpecModule, ReadError]] = []
    for line in lines:
        data = json.loads(line)
        if data.get("kind") == "read_error":
            out.append(ReadError(spec=data["spec"], message=data["message"]))
        else:
            out.append(SpecModule.from_data(data))
    return out


def read_spec(path: str | Path, toolchain: NodeToolchain) -> Union[SpecModule, ReadError]:
    return read_specs([path], toolchain)[0]
