"""The static assets binding kind: the config's ``assets``, served in front of the Worker.

Miniflare's assets (the asset worker Cloudflare runs in front of the Worker) serve the
``directory``; the runtime record (runtime/bindings/assets.mjs) decides by ``run_worker_first``
whether a request reaches the Worker, and records a request the assets answer as an
``Assets:<path>`` response, never faulted. The Worker's own binding to them (``binding``, when
the section names one) is proxied: each ``fetch`` is one ``Assets:<binding>`` effect, never
faulted, as static files are no effect a retry changes.

The files are read, never written, so a run changes nothing of them: the kind has no setup
step, and its binding needs none. What it reads of the config is the section itself
(:class:`Assets`, its ``settings``): the section is inherited by an environment, as wrangler
applies it, and a ``directory`` that does not exist is refused at its line.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import attrs

from ._record import BindingKind, DraftContext, KindNames

if TYPE_CHECKING:
    from eutaxy.cloudflare.wrangler import Binding, WranglerConfig, _Reader

__all__ = ["ASSETS", "HTML_HANDLING", "NOT_FOUND_HANDLING", "Assets", "AssetsKind"]

#: The values wrangler accepts for ``assets.html_handling`` and ``assets.not_found_handling``.
HTML_HANDLING = ("auto-trailing-slash", "force-trailing-slash", "drop-trailing-slash", "none")
NOT_FOUND_HANDLING = ("none", "404-page", "single-page-application")


@attrs.frozen(kw_only=True)
class Assets:
    """The ``assets`` section: the static files Cloudflare serves in front of the Worker."""

    #: The assets directory, resolved against the config's folder (it exists: the reader checks).
    directory: Path
    binding: str | None
    #: ``True`` (every request goes to the Worker first), ``False``, or the path patterns that do
    #: (a ``!`` before a pattern sends matching paths to the assets instead).
    run_worker_first: bool | tuple[str, ...]
    #: How a path finds an HTML file (``auto-trailing-slash``, wrangler's default, ...).
    html_handling: str
    #: What answers a path no file matches (``none``, ``404-page``, ``single-page-application``).
    not_found_handling: str


@attrs.frozen(kw_only=True)
class AssetsKind(BindingKind):
    """Static assets: one section, at most one binding, read-only."""

    def read_bindings(self, reader: "_Reader", data: Mapping[str, Any]) -> list["Binding"] | None:
        from eutaxy.cloudflare.wrangler import Binding

        section = data.get(self.section)
        if isinstance(section, dict) and isinstance(section.get("binding"), str):
            return [Binding(kind=self.name, name=section["binding"], resource=None)]
        return []

    def read_settings(self, reader: "_Reader", data: Mapping[str, Any]) -> Assets | None:
        """The ``assets`` section; its directory must exist (Cloudflare serves it in front of the Worker)."""
        section = data.get(self.section)
        if section is None:
            return None
        if not isinstance(section, dict):
            raise reader.error(f"assets must be an object with directory and binding, got {section!r}", key="assets")
        directory = reader.optional_string(section, "directory", "assets")
        if directory is None:
            raise reader.error("assets needs directory: the folder of static files Cloudflare serves in front of the Worker", key="assets")
        resolved = (reader.path.parent / directory).resolve()
        if not resolved.is_dir():
            raise reader.error(
                f"assets.directory names {directory!r}, which is not a directory ({resolved}); build the static files first "
                "or fix the path",
                key="directory",
                written=directory,
            )
        first = section.get("run_worker_first", False)
        if not isinstance(first, bool) and not (isinstance(first, list) and all(isinstance(item, str) for item in first)):
            raise reader.error(f"run_worker_first in assets must be true, false or a list of path patterns, got {first!r}")
        html_handling = reader.optional_string(section, "html_handling", "assets") or "auto-trailing-slash"
        if html_handling not in HTML_HANDLING:
            raise reader.error(f"assets.html_handling must be one of {', '.join(HTML_HANDLING)}, got {html_handling!r}", key="html_handling")
        not_found = reader.optional_string(section, "not_found_handling", "assets") or "none"
        if not_found not in NOT_FOUND_HANDLING:
            raise reader.error(
                f"assets.not_found_handling must be one of {', '.join(NOT_FOUND_HANDLING)}, got {not_found!r}", key="not_found_handling"
            )
        return Assets(
            directory=resolved,
            binding=reader.optional_string(section, "binding", "assets"),
            run_worker_first=first if isinstance(first, bool) else tuple(first),
            html_handling=html_handling,
            not_found_handling=not_found,
        )

    def assets(self, config: "WranglerConfig") -> Assets | None:
        """The config's ``assets`` section as read, None without one."""
        settings = config.settings_of(self.name)
        return settings if isinstance(settings, Assets) else None

    def section_settings(self, config: "WranglerConfig") -> dict[str, Any] | None:
        """The section as Miniflare's assets and the http drive read it: the directory (absolute),
        the binding (None when the Worker has none), run_worker_first, html_handling and
        not_found_handling."""
        assets = self.assets(config)
        if assets is None:
            return None
        return {
            "directory": str(assets.directory),
            "binding": assets.binding,
            "runWorkerFirst": assets.run_worker_first if isinstance(assets.run_worker_first, bool) else list(assets.run_worker_first),
            "htmlHandling": assets.html_handling,
            "notFoundHandling": assets.not_found_handling,
        }

    def miniflare_options(self, config: "WranglerConfig") -> dict[str, Any]:
        # The section goes to Miniflare's assets whole (host/miniflare.mjs builds the option); the binding is inside it.
        settings = self.section_settings(config)
        return {} if settings is None else {"assets": settings}

    def draft_section_notes(self, draft: DraftContext) -> None:
        assets = self.assets(draft.config)
        if assets is not None:
            draft.note("read", f"the assets directory {draft.relative(assets.directory)} answers requests for "
                       "its files before the Worker runs (recorded as Assets responses, never faulted): the Worker's bugs are on "
                       "the paths it answers")


ASSETS = AssetsKind(
    name="assets",
    names=KindNames(label="Assets", plural="assets bindings", noun="assets"),
    section="assets",
    resource_field="directory",
    section_note=(
        "Served by Miniflare's assets in front of the Worker (`directory`, `html_handling`, `not_found_handling`, "
        "`run_worker_first`): a request the assets answer never reaches the Worker and is recorded as an "
        "`Assets:<path>` response, never faulted; the `binding`'s `fetch` is an `Assets:<binding>` effect, never "
        "faulted. A `directory` that does not exist is refused (exit 2) at its line."
    ),
    section_where="inherited",
    # Assets:<path> names the response to a request the assets answered, besides Assets:<binding>.
    checks_targets=False,
    miniflare_option="assets",
)
