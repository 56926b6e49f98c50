"""Which of a scenario's requests Cloudflare would answer from the Worker's static assets.

With an ``assets`` directory in the config, Cloudflare serves a request whose path names one
of its files (or, by ``html_handling``, an HTML file for it) before the Worker runs, unless
``run_worker_first`` sends the path to the Worker. Eutaxy does not serve assets, so such a
request would reach the Worker under the check and never in production: a verdict on it
would judge a Worker production never runs. :func:`served_by` finds the file that answers a
request, and eutaxy.cloudflare.worker refuses a scenario that drives one (exit 2).

The rules follow Cloudflare's documentation of static assets ("HTML handling", "Routing",
``run_worker_first``): with ``auto-trailing-slash`` (the default), ``force-trailing-slash``
or ``drop-trailing-slash``, ``/about`` finds ``about.html`` or ``about/index.html`` and
``/docs/`` finds ``docs/index.html`` or ``docs.html`` (a redirect to the other spelling is
still the assets' answer); ``none`` serves files by their exact path. With
``not_found_handling = "single-page-application"`` a navigation request (``Sec-Fetch-Mode:
navigate``) that matches no file gets ``index.html``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping
from urllib.parse import unquote

from .wrangler import Assets

__all__ = ["served_by"]


def served_by(assets: Assets, path: str, headers: Mapping[str, str]) -> Path | None:
    """The asset file Cloudflare answers a request for ``path`` with, else None (the Worker runs)."""
    if assets.directory is None or not assets.directory.is_dir():
        return None
    route = unquote(re.split(r"[?#]", path, maxsplit=1)[0]) or "/"
    if _worker_first(assets.run_worker_first, route):
        return None
    root = assets.directory.resolve()
    for candidate in _candidates(route, assets.html_handling):
        file = (root / candidate.lstrip("/")).resolve()
        if file.is_file() and file.is_relative_to(root):
            return file
    navigate = any(name.lower() == "sec-fetch-mode" and value.lower() == "navigate" for name, value in headers.items())
    if assets.not_found_handling == "single-page-application" and navigate and (root / "index.html").is_file():
        return root / "index.html"
    return None


def _candidates(route: str, html_handling: str) -> list[str]:
    if html_handling == "none":
        return [] if route.endswith("/") else [route]
    if route.endswith("/"):
        stem = route.rstrip("/")
        return [f"{route}index.html"] + ([f"{stem}.html"] if stem else [])
    return [route, f"{route}.html", f"{route}/index.html"]


def _worker_first(rule: bool | tuple[str, ...], route: str) -> bool:
    """Whether ``run_worker_first`` sends ``route`` to the Worker: true, or a pattern matching it and no ``!`` pattern."""
    if isinstance(rule, bool):
        return rule
    matches = [pattern for pattern in rule if _glob(pattern.removeprefix("!"), route)]
    return any(not pattern.startswith("!") for pattern in matches) and not any(pattern.startswith("!") for pattern in matches)


def _glob(pattern: str, route: str) -> bool:
    return re.fullmatch(".*".join(re.escape(part) for part in pattern.split("*")), route) is not None
