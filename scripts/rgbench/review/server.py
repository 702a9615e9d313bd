"""The grading page's server: the standard library's ThreadingHTTPServer, bound to 127.0.0.1 only.

Why the standard library: the page has five routes, one user and no templates beyond pages.py;
http.server does that without a new dependency to pin and audit (a framework would bring routing,
sessions and a template engine the page does not need).

Every request must carry the session's random token in its query (``?token=``), else 403; the Host
header must name this server (127.0.0.1 or localhost with its port), which defeats DNS rebinding.
State-changing requests (POST) must also send the page's CSRF token in ``X-CSRF-Token`` with a JSON
body, and an ``Origin``/``Sec-Fetch-Site`` that, when the browser sends them, say same origin: a
cross-site form can neither set the header nor the content type. Writes go only to the tree's
scoring folders (scoring_doc.save).
"""

from __future__ import annotations

import hmac
import json
import secrets
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..atomic import OutputError
from ..load.parsing import ParseError, decode_utf8, loads_json_strict, loads_yaml_strict
from ..load.records import Tree
from ..load.reviewers import HUMAN, Reviewer
from ..load.safe_read import read_bytes
from ..load.spec import Spec
from . import pages, scoring_doc
from .plain import plain_messages
from .runs import ERROR_RUN, ERROR_STATUS, QueuedRun, RunKey, build_queue, filtered, run_handle

STATIC = Path(__file__).resolve().parent / "static"
STATIC_TYPES = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}
FILTER_KEYS = ("family", "difficulty", "case_type")
MAX_BODY = 1 << 20
IDLE_TIMEOUT = 60   # seconds a connection may stay silent (also the wait for a request's announced bytes)
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")


@dataclass
class ReviewApp:
    """One grading session: the validated tree, the reviewer, the secrets, and what the pages show."""

    root: Path
    spec: Spec
    tree: Tree
    reviewer: Reviewer   # one of tree.reviewers (open_app refuses a tree without them)
    assigned: dict[RunKey, str]
    blind: bool = True
    drawn: dict[RunKey, str] | None = None   # judge-assisted: drawn run -> its reviewer, in draw order
    open_runs: tuple[RunKey, ...] = ()   # judge-assisted: no human grade yet, open to every human (rgbench review)
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    lock: threading.Lock = field(default_factory=threading.Lock)
    saved: list[str] = field(default_factory=list)   # the grades saved this session, as the terminal names them

    def queue(self) -> list[QueuedRun]:
        first, anyone = scoring_doc.graded_runs(self.root, self.spec)
        rid = self.reviewer.reviewer_id
        mine = [key for key, who in anyone.items() if rid in who]
        wanted = [key for key, who in self.assigned.items() if who == rid]
        if self.drawn is None:
            return build_queue(self.tree, rid, first, mine, wanted)
        humans = {r for r, reviewer in (self.tree.reviewers or {}).items() if reviewer.kind == HUMAN}
        waiting = [key for key, who in self.drawn.items() if who == rid and not anyone.get(key, set()) & humans]
        # then the runs open to every human until one grades them (a drawn run named for a reviewer waits for them)
        waiting += [key for key in self.open_runs if key not in self.drawn and not anyone.get(key, set()) & humans]
        return build_queue(self.tree, rid, first, mine, wanted, waiting)

    def catalog(self) -> list[pages.Fail]:
        document = loads_yaml_strict(decode_utf8(read_bytes(self.root, self.spec.catalog_path)))
        return [pages.Fail(e["code"], e["severity"], e["title"], " ".join(e["description"].split()))
                for e in document["automatic_fails"]]

    def criterion_help(self) -> dict[str, str]:
        properties = self.spec.validators["evaluation"].schema["properties"]["criterion_scores"].get("properties", {})
        return {name: str(properties.get(name, {}).get("description", "")) for name in self.spec.criteria}

    def identity(self, key: RunKey) -> str | None:
        """Unblinded only: the subject's display name, id and version, and the run's grades saved so far."""
        if self.blind:
            return None
        subject = self.tree.subjects[key[0]]
        name = dict(subject.extra).get("display_name", subject.subject_id)
        grades = scoring_doc.grades_text(self.root, self.spec, key)
        return f"{name} ({subject.subject_id}, version {subject.subject_version})" + (f" · graded: {grades}" if grades else "")

    def key_of(self, handle: str) -> RunKey | None:
        """The run this reviewer's ``handle`` names, queued or not; None when it names none."""
        rid = self.reviewer.reviewer_id
        return next((key for key in self.tree.responses if run_handle(rid, key) == handle), None)

    def why_not_queued(self, handle: str) -> str:
        """Why ``handle`` (not in the queue) cannot be graded: a run with status error, a run already graded
        (with its grades when unblinded), or no such run. Never names the subject when blind."""
        key = self.key_of(handle)
        if key is None:
            return "no run has this address (open runs from the queue)"
        if self.tree.responses[key].meta.status == ERROR_STATUS:
            return ERROR_RUN
        rid = self.reviewer.reviewer_id
        said = ("you have already graded this run" if rid in scoring_doc.graded_runs(self.root, self.spec)[1].get(key, ())
                else "this run has its grade in scoring/ by another reviewer and is not assigned to you for a second grade")
        shown = self.identity(key)
        return f"{said}: nothing to do here; go back to the queue for the next run" + (f". Unblinded: {shown}" if shown else "")

    def rubric_text(self) -> str:
        """The reviewers' rubric (what each level means); "" when the tree has none, so the page lists no meanings."""
        try:
            return decode_utf8(read_bytes(self.root, self.spec.rubric_path))
        except (OSError, ParseError):
            return ""

    def run_html(self, run: QueuedRun, filters: Mapping[str, str], left: int) -> str:
        spec = self.spec
        response = loads_json_strict(decode_utf8(read_bytes(self.root, self.tree.responses[run.key].path)))
        gold_md = decode_utf8(read_bytes(self.root, self.tree.golds[run.case_id].path))
        rubric = self.rubric_text()
        return pages.run_page(spec=spec, run=run, reviewer=self.reviewer.reviewer_id, token=self.token,
                              csrf=self.csrf, filters=filters, gold_md=gold_md,
                              response_text=str(response.get("response_text", "")),
                              levels=pages.rubric_levels(rubric, spec.criteria),
                              criterion_help=self.criterion_help(), fails=self.catalog(), left=left,
                              identity=self.identity(run.key))

    def check(self, form: dict[str, Any], *, saving: bool) -> tuple[QueuedRun | None, dict[str, Any], list[str]]:
        """(run, document, messages) of a submitted form; messages never name the subject when blind."""
        handle = form.get("handle")
        run = next((r for r in self.queue() if r.handle == handle), None)
        if run is None:
            return None, {}, [self.why_not_queued(str(handle))]
        response_sha, gold_sha, problems = scoring_doc.pins(self.root, self.spec, run.key)
        document = scoring_doc.document_from_form(
            self.spec, run, self.reviewer.reviewer_id, self.tree.subjects[run.key[0]].subject_version, form,
            response_sha256=response_sha or "0" * 64, gold_sha256=gold_sha or "0" * 64, blind=self.blind)
        messages = plain_messages(self.spec, document,
                                  scoring_doc.document_messages(self.spec, document, self.tree.reviewers))
        if saving:
            messages += problems
            if response_sha != self.tree.inputs[self.tree.responses[run.key].path]:
                messages.append("the response changed since the page was opened; restart rgbench review")
            rid = self.reviewer.reviewer_id
            messages += scoring_doc.refusals(self.root, self.spec, run, rid, self.assigned.get(run.key)
                                             or (self.drawn or {}).get(run.key) or (rid if run.key in self.open_runs else None))
        return run, document, messages

    def save(self, form: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Check and write the grade, under this session's lock and the checkout's (another session's Save
        waits, then sees this one's file); (status, answer) for the page."""
        with self.lock, scoring_doc.checkout_lock(self.root):
            run, document, messages = self.check(form, saving=True)
            if run is None or messages:
                return HTTPStatus.UNPROCESSABLE_ENTITY, {"messages": messages}
            rel = scoring_doc.target_rel(self.spec, run, self.reviewer.reviewer_id)
            # blind: the path names the subject, so the page and the terminal say the case, run and handle
            shown = f"your grade of {run.case_id} run {run.run_id} (run {run.handle})" if self.blind else rel
            try:
                problems = scoring_doc.save(self.root, rel, document)
            except OutputError as exc:   # read-only folder, full disk: nothing written
                print(f"{shown}: {exc.reason}", file=sys.stderr)
                return HTTPStatus.INTERNAL_SERVER_ERROR, {"messages": [f"{shown}: {exc.reason}"]}
            if problems:
                return HTTPStatus.CONFLICT, {"messages": problems}
            self.saved.append(shown)
            print(f"saved {shown}", file=sys.stderr)
        filters = _filters(parse_qs(str(form.get("filters", ""))))
        rest = filtered(self.queue(), filters)
        where = f"/run/{rest[0].handle}" if rest else "/"
        return HTTPStatus.OK, {"saved": shown, "next": where}


def _filters(query: Mapping[str, list[str]]) -> dict[str, str]:
    return {key: query.get(key, [""])[0] for key in FILTER_KEYS}


class Handler(BaseHTTPRequestHandler):
    """Routes: GET /, /run/<handle>, /static/<file>; POST /api/validate, /api/save."""

    app: ReviewApp  # set on the subclass made by make_server
    server_version = "rgbench-review"
    sys_version = ""
    timeout = IDLE_TIMEOUT   # socket timeout of every connection: an idle or trickling client is dropped

    def log_message(self, format: str, *args: Any) -> None:  # the request line would print the token
        return

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _html(self, status: int, text: str) -> None:
        self._send(status, text.encode("utf-8"), "text/html; charset=utf-8")

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value, sort_keys=True).encode("utf-8"), "application/json")

    def _refuse(self, status: HTTPStatus, message: str, back: str = "") -> None:
        """An error page; ``back`` (the queue's link, once the token is known good) is its way back."""
        self._html(status, pages.error_page(f"{status.value} {status.phrase}", message, back))

    def _admitted(self) -> dict[str, list[str]] | None:
        """The query when the request names this server and carries the token; else refuse and None."""
        port = self._port()
        if self.headers.get("Host", "") not in (f"127.0.0.1:{port}", f"localhost:{port}"):
            self._refuse(HTTPStatus.FORBIDDEN, "wrong Host header")
            return None
        query = parse_qs(urlsplit(self.path).query)
        given = query.get("token", [""])[0]
        if not hmac.compare_digest(given.encode(), self.app.token.encode()):
            self._refuse(HTTPStatus.FORBIDDEN, "open the URL that rgbench review printed (it carries the token)")
            return None
        return query

    def _port(self) -> int:
        address: Any = self.server.server_address  # an AF_INET server: (host, port)
        return int(address[1])

    def do_GET(self) -> None:
        query = self._admitted()
        if query is None:
            return
        path = urlsplit(self.path).path
        app = self.app
        if path.startswith("/static/"):
            name = path[len("/static/"):]
            if name not in STATIC_TYPES:
                return self._refuse(HTTPStatus.NOT_FOUND, "no such file", pages.link("/", app.token))
            return self._send(HTTPStatus.OK, (STATIC / name).read_bytes(), STATIC_TYPES[name])
        filters = _filters(query)
        back = pages.link("/", app.token, filters)
        queue = app.queue()
        shown = filtered(queue, filters)
        if path == "/":
            notice = f"{len(app.saved)} grade(s) saved this session." if app.saved else ""
            return self._html(HTTPStatus.OK, pages.queue_page(
                reviewer=app.reviewer.reviewer_id, blind=app.blind, token=app.token, queue=queue, shown=shown,
                filters=filters, families=sorted(app.spec.families), notice=notice,
                has_difficulty=app.spec.has_difficulty, has_case_type=app.spec.has_case_type))
        if path.startswith("/run/"):
            run = next((r for r in queue if r.handle == path[len("/run/"):]), None)
            if run is None:   # not gradable: a page that says why, with the way back (a 404 only for no run)
                handle = path[len("/run/"):]
                status = HTTPStatus.NOT_FOUND if app.key_of(handle) is None else HTTPStatus.CONFLICT
                return self._refuse(status, app.why_not_queued(handle), back)
            return self._html(HTTPStatus.OK, app.run_html(run, filters, len(shown)))
        return self._refuse(HTTPStatus.NOT_FOUND, "no such page", back)

    def do_POST(self) -> None:
        if self._admitted() is None:
            return
        port = self._port()
        origin = self.headers.get("Origin")
        site = self.headers.get("Sec-Fetch-Site")
        if (not hmac.compare_digest(self.headers.get("X-CSRF-Token", "").encode(), self.app.csrf.encode())
                or origin not in (None, f"http://127.0.0.1:{port}", f"http://localhost:{port}")
                or site not in (None, "same-origin")
                or self.headers.get_content_type() != "application/json"):
            return self._refuse(HTTPStatus.FORBIDDEN, "cross-site request refused (CSRF check)")
        path = urlsplit(self.path).path
        if path not in ("/api/validate", "/api/save"):
            return self._refuse(HTTPStatus.NOT_FOUND, "no such endpoint")
        refusal, form, problems = self._body()
        if form is None:
            return self._json(refusal, {"messages": problems})
        if path == "/api/validate":
            _, _, messages = self.app.check(form, saving=False)
            return self._json(HTTPStatus.OK, {"messages": messages})
        status, answer = self.app.save(form)
        return self._json(status, answer)

    def _body(self) -> tuple[HTTPStatus, dict[str, Any] | None, list[str]]:
        """(OK, the page's form, []) from the request body; else (status, None, what is wrong).

        One ``Content-Length`` of at most MAX_BODY bytes (no chunked body), that many bytes of strict UTF-8
        JSON (rgbench's parser: no duplicate keys, NaN or Infinity, bounded numbers and depth), an object of
        the form's shape (scoring_doc.form_problems). A short body waits at most the connection's timeout.
        """
        lengths = self.headers.get_all("Content-Length") or []
        if self.headers.get("Transfer-Encoding") is not None:
            return HTTPStatus.BAD_REQUEST, None, ["Transfer-Encoding: not accepted (send the JSON body with a "
                                                  "Content-Length)"]
        if not lengths:
            return HTTPStatus.LENGTH_REQUIRED, None, ["request body missing: send the form as JSON with a Content-Length"]
        text = lengths[0].strip()
        if len(lengths) > 1 or not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_BODY)) + 1:
            return HTTPStatus.BAD_REQUEST, None, ["Content-Length: expected one byte count"]
        length = int(text)
        if length == 0:
            return HTTPStatus.BAD_REQUEST, None, ["request body missing: send the form as JSON"]
        if length > MAX_BODY:
            return HTTPStatus.REQUEST_ENTITY_TOO_LARGE, None, [f"request body too large ({length} bytes; at most "
                                                               f"{MAX_BODY})"]
        data = self.rfile.read(length)
        if len(data) < length:
            return HTTPStatus.BAD_REQUEST, None, [f"request body: {len(data)} bytes, shorter than its Content-Length"]
        try:
            form = loads_json_strict(decode_utf8(data))
        except ParseError as exc:
            return HTTPStatus.BAD_REQUEST, None, [f"request body: {exc}"]
        if not isinstance(form, dict):
            return HTTPStatus.BAD_REQUEST, None, ["request body: expected a JSON object (the page's form)"]
        problems = scoring_doc.form_problems(form)
        if problems:
            return HTTPStatus.BAD_REQUEST, None, [f"request body: {problem}" for problem in problems]
        return HTTPStatus.OK, form, []


class ReviewServer(ThreadingHTTPServer):
    """The standard server, but a request that fails unexpectedly (a client gone mid-answer, a file of the tree
    removed meanwhile) prints one line, not a traceback; the session goes on."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        blind = self.RequestHandlerClass.app.blind  # type: ignore[attr-defined]
        said = "" if blind else f": {error}"   # blind: an error's text may hold a path, which names the subject
        print(f"rgbench review: a request failed and was dropped: {type(error).__name__}{said}", file=sys.stderr)


def make_server(app: ReviewApp, port: int = 0, timeout: float = IDLE_TIMEOUT) -> ThreadingHTTPServer:
    """A server for ``app`` on 127.0.0.1:``port`` (0: a free port); call serve_forever() on it. A connection
    silent for ``timeout`` seconds is closed (http.server's handler catches the timeout and drops it)."""
    handler = type("BoundHandler", (Handler,), {"app": app, "timeout": timeout})
    server = ReviewServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server


def url(app: ReviewApp, server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{int(server.server_address[1])}/?token={app.token}"
