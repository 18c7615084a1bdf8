"""The explorer's ASGI app: server-rendered pages, the JSON API, committed static assets;
the Host guard and the body limit on every request, and the same-origin guard on every
request that is not a plain read."""

from __future__ import annotations

import importlib.util
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint

from clusterplace import __version__
from clusterplace.delivery.explain import timestamp
from clusterplace.errors import shorten
from clusterplace.labels import SelectorError
from clusterplace.web.api import cluster_rows, explorer, router
from clusterplace.web.fates import (
    SHOW,
    FateFilter,
    cutoff_text,
    group_labels,
    page_rows,
    paging,
    ranked,
    stage_counts,
)
from clusterplace.web.guards import MAX_BODY_BYTES, BodyLimit, HostGuard, HostRule
from clusterplace.web.listing import SHOW_PLACEMENTS, PlacementFilter, page_of
from clusterplace.web.order import naturally, ref_key
from clusterplace.web.responses import SafeJSONResponse as JSONResponse
from clusterplace.web.state import Explorer

__all__ = ["create_app"]

HERE = Path(__file__).parent
# A rollout state is shown with a symbol and its name, never by its colour alone.
STATE_SYMBOLS = {
    "ToApply": "→",
    "Progressing": "◐",
    "Succeeded": "✓",
    "Failed": "✗",
    "TimeOut": "✗",
    "outdated": "↻",
    "not started": "○",
    "removed": "−",
}
_TIMES = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")


def _unbroken_times(text: str) -> Markup:
    """Text with its RFC 3339 times kept on one line (a narrow lane breaks lines at
    spaces, not inside a time)."""
    escaped = str(escape(text))
    return Markup(_TIMES.sub(lambda m: f'<span class="nowrap">{m.group(0)}</span>', escaped))


def _breakable(text: str) -> Markup:
    """Text that may break after a ``/`` (a long prioritizer name in a narrow cell)."""
    return Markup(str(escape(text)).replace("/", "/<wbr>"))


def _condition_good(kind: str, status: str) -> bool:
    """Whether a ManifestWorkReplicaSet condition says all is well (RolloutHalted says
    so when it is False)."""
    return (status == "True") != (kind == "RolloutHalted")


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def swagger_assets() -> Path | None:
    """Swagger UI's files as the ``fastapi-offline`` package ships them (the serve
    extra installs it), or None without it: the explorer never loads them from a CDN."""
    spec = importlib.util.find_spec("fastapi_offline")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "static"
    wanted = ("swagger-ui-bundle.js", "swagger-ui.css")
    return folder if all((folder / name).is_file() for name in wanted) else None


def _page_number(text: str) -> int:
    return int(text) if text.isdigit() and len(text) < 8 else 1


class SameOrigin(BaseHTTPMiddleware):
    """Refuse (403) a state-changing request another site's page could send: its
    ``Sec-Fetch-Site`` says cross-site, or its ``Origin`` is not this server."""

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if request.method not in SAFE_METHODS and not _same_origin(request):
            return JSONResponse({"detail": "cross-origin request refused"}, status_code=403)
        return await call_next(request)


def _same_origin(request: Request) -> bool:
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not sent by a browser page (curl, scripts): no ambient credentials
    host = request.headers.get("host", "")
    return urlsplit(origin).netloc == host and origin != "null"


def _shortened(value: Any) -> Any:
    """A rejected value as an error repeats it: a short prefix only, whatever was sent."""
    if isinstance(value, str | bytes):
        return shorten(value if isinstance(value, str) else value.decode("utf-8", "replace"))
    if isinstance(value, float) and not math.isfinite(value):
        # Python reads NaN, Infinity and 1e999 in a body, but JSON cannot hold them: they
        # go back as text, or the error itself could not be answered.
        return repr(value)
    if isinstance(value, int | float | bool) or value is None:
        return value
    return shorten(repr(value))


async def _invalid_request(_: Request, err: Exception) -> JSONResponse:
    assert isinstance(err, RequestValidationError)
    detail = [
        {
            "type": e.get("type"),
            "loc": list(e.get("loc", ())),
            "msg": shorten(str(e.get("msg", "")), 200),
            "input": _shortened(e.get("input")),
        }
        for e in err.errors()[:20]
    ]
    return JSONResponse({"detail": detail}, status_code=422)


def _page_url(request: Request) -> Callable[[int], str]:
    """A function giving the URL of another page of the same query (filters kept)."""

    def url(number: int) -> str:
        params = dict(request.query_params)
        params["page"] = str(number)
        return "?" + urlencode(params)

    return url


def create_app(state: Explorer, *, hosts: HostRule, max_body: int = MAX_BODY_BYTES) -> FastAPI:
    """The explorer's app over ``state``, answering only requests sent to ``hosts``
    (see :func:`clusterplace.web.guards.served_hosts`) with bodies up to ``max_body``."""
    app = FastAPI(
        title="clusterplace explorer",
        version=__version__,
        description="Read-only: see, explain and what-if the placements of a fleet.",
        docs_url=None,  # served below from local files, never from a CDN
        redoc_url=None,
        default_response_class=JSONResponse,
    )
    app.state.explorer = state
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_middleware(SameOrigin)
    app.add_middleware(BodyLimit, limit=max_body)
    app.add_middleware(HostGuard, rule=hosts)  # added last: runs first
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    assets = swagger_assets()
    if assets is not None:
        app.mount("/swagger-ui", StaticFiles(directory=assets), name="swagger")
    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.filters["times"] = _unbroken_times
    templates.env.filters["breakable"] = _breakable
    templates.env.tests["good_condition"] = lambda c: _condition_good(c[0], c[1])

    def page(
        request: Request, template: str, status_code: int = 200, **context: Any
    ) -> HTMLResponse:
        current = explorer(request)  # read again if the hub changed
        context.update(
            problem=current.problem,
            source=state.source.label,
            live=state.source.events is not None,
            module=state.module is not None,
        )
        return templates.TemplateResponse(request, template, context, status_code=status_code)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(HERE / "static" / "favicon.svg", media_type="image/svg+xml")

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    def api_docs(request: Request) -> HTMLResponse:
        if assets is None:
            return page(request, "no_docs.html")
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="clusterplace explorer API",
            swagger_js_url="/swagger-ui/swagger-ui-bundle.js",
            swagger_css_url="/swagger-ui/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def fleet_page(request: Request, selector: str = "") -> HTMLResponse:
        current = explorer(request)
        error = ""
        try:
            rows = cluster_rows(current, selector[:2000])
        except SelectorError as err:
            rows, error = [], f"invalid selector: {err}"
        pages = paging(len(rows), _page_number(request.query_params.get("page", "1")))
        return page(
            request,
            "fleet.html",
            rows=rows[pages.start : pages.stop],
            matched=len(rows),
            pages=pages,
            page_url=_page_url(request),
            selector=selector,
            error=error,
        )

    @app.get("/placements", response_class=HTMLResponse, include_in_schema=False)
    def placements_page(
        request: Request, search: str = "", show: str = "all", status: str = ""
    ) -> HTMLResponse:
        current = explorer(request)
        chosen = PlacementFilter(
            search[:400], show if show in SHOW_PLACEMENTS else "all", status[:400]
        )
        with current.lock:
            listing = current.listing()
            kept = listing.kept(chosen)
            pages = paging(len(kept), _page_number(request.query_params.get("page", "1")))
            rows = page_of(current, kept[pages.start : pages.stop])
            statuses = list(listing.statuses)
            total = len(listing.entries)
            one_pass = current.one_pass_may_move()
        if chosen.status and chosen.status not in dict(statuses):
            statuses.append((chosen.status, 0))  # asked for in the URL: shown, with its 0
        return page(
            request,
            "placements.html",
            rows=rows,
            total=total,
            matched=len(kept),
            pages=pages,
            page_url=_page_url(request),
            chosen=chosen,
            statuses=statuses,
            one_pass=one_pass,
        )

    @app.get("/placements/{namespace}/{name}", response_class=HTMLResponse, include_in_schema=False)
    def placement_page(
        request: Request,
        namespace: str,
        name: str,
        stage: str = "",
        show: str = "all",
        search: str = "",
    ) -> HTMLResponse:
        current = explorer(request)
        found = current.explained(namespace, name)
        if found is None:
            return page(
                request,
                "missing.html",
                what=f'placement "{name}" in namespace "{namespace}"',
                status_code=404,
            )
        result, items = found
        chosen = FateFilter(stage[:100], show if show in SHOW else "all", search[:400])
        shown = [i for i in ranked(items) if chosen.keeps(i)]
        pages = paging(len(shown), _page_number(request.query_params.get("page", "1")))
        wanted = result.placement.spec.number_of_clusters
        stages = stage_counts(items)
        if chosen.stage and chosen.stage not in dict(stages):
            stages.append((chosen.stage, 0))  # asked for in the URL: shown, with its 0
        return page(
            request,
            "placement.html",
            result=result,
            rows=page_rows(
                shown, group_labels(result), pages.start, pages.stop, current.run.fleet.clusters
            ),
            total=len(items),
            matched=len(shown),
            pages=pages,
            page_url=_page_url(request),
            selected=sum(i.selected for i in items),
            wanted=wanted,
            cutoff=cutoff_text(wanted),
            stages=stages,
            chosen=chosen,
            namespace=namespace,
            name=name,
        )

    @app.get("/heatmap", response_class=HTMLResponse, include_in_schema=False)
    def heatmap_page(request: Request) -> HTMLResponse:
        return page(request, "heatmap.html")

    @app.get("/what-if", response_class=HTMLResponse, include_in_schema=False)
    def what_if_page(request: Request) -> HTMLResponse:
        current = explorer(request)
        return page(
            request,
            "what_if.html",
            clusters=naturally(current.run.fleet.clusters),
            placements=[
                f"{ns}/{n}"
                for ns, n in sorted(current.run.fleet.placements, key=lambda k: ref_key(*k))
            ],
        )

    @app.get("/rollouts", response_class=HTMLResponse, include_in_schema=False)
    def rollouts_page(request: Request) -> HTMLResponse:
        current = explorer(request)
        now = current.rollout_time()
        return page(
            request,
            "rollouts.html",
            rollouts=current.rollouts(now),
            not_started=current.not_started,
            now=timestamp(now),
            timestamp=timestamp,
            symbols=STATE_SYMBOLS,
        )

    @app.get("/live", response_class=HTMLResponse, include_in_schema=False)
    def live_page(request: Request) -> HTMLResponse:
        return page(request, "live.html")

    @app.get("/modules", response_class=HTMLResponse, include_in_schema=False)
    def modules_page(request: Request) -> HTMLResponse:
        return page(request, "modules.html")

    return app
