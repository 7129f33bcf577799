"""The tool contract: every tool's name, group, parameters, description and hints.

A table of plain data that imports nothing outside the standard library, so that
whoever needs to know the tools reads it without the weight of what answers them:
`config` (the `tools` setting), `doctor` (the tool count a server must list), the
command line, `install/build_mcpb.py` (the bundle's manifest) and the server. What
answers each tool, its output model, projection and text, is bound to it in
`pwc_local.server.bindings` (a module per group), one entry per entry here, in the
same order.

A parameter's `type` is a Python type or a `Kind`: a type with the bounds and the
description the input schema states (`pwc_local.server.tools` turns a `Kind` into
the `Annotated[..., Field(...)]` the SDK reads). Its `default` is the only one: the
query functions state none of their own.

Groups: `hosted` are the 21 tools of the hosted Papers With Code server (the
contract in tests/data/tools.json); `library`, `reading`, `watch` and `history` are local
additions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

# -- bounds the tools and the command line both state ---------------------------------------

CHUNK_BYTES = 65536
"""The catalog's Markdown chunk (64 KiB): what a reader asks per read, the largest
`limit` a cursor may carry, the most a section answer holds, a saved piece's size."""

MAX_ROWS = 25  # rows (or passages) one answer may be asked for
MAX_SAVE = 25  # references one `save_papers` call may name
SEARCH_LIBRARY_LIMIT = 10  # passages `search_library` and `library search` return by default
MAX_REFERENCE_CHARS = 500  # a paper reference: tool schema and `library add` / `remove`
MAX_TEXT_CHARS = 500  # any other free text a tool takes (a search, a filter's name)
MAX_NAME_CHARS = 200  # a metric or author name
MAX_CURSOR_CHARS = 2048  # a read_paper cursor: a signed token (`common.cursors`)

Group = Literal["hosted", "library", "reading", "watch", "history"]
CitationFormat = Literal["bibtex", "ris", "csl-json"]
CITATION_FORMATS: tuple[CitationFormat, ...] = get_args(CitationFormat)
TableFormat = Literal["markdown", "latex", "csv"]
TABLE_FORMATS: tuple[TableFormat, ...] = get_args(TableFormat)
MAX_TABLE_ROWS = 50  # rows one results table may be asked for
WatchKind = Literal["benchmark", "task", "paper", "author", "query"]
WATCH_KINDS: tuple[WatchKind, ...] = get_args(WatchKind)


# The schema bounds a `Kind` may state (pydantic `Field` keywords), in the order given to it.
KIND_BOUNDS = ("ge", "le", "min_length", "max_length", "description")


class Kind:
    """A parameter type with its schema bounds and description: `Kind(int, ge=1, le=25)`.

    `bounds` holds the `KIND_BOUNDS` keywords given. `items` is the kind of a list's
    elements, or of a dict's keys. Every string a tool takes has a `max_length`, its own
    or its items' (tests/test_contract.py): nothing unbounded reaches the catalog.
    `reference` marks a paper or entity reference: a JSON number sent there
    (`paper: 1706.03762`) is read as the text it stands for (`pwc_local.server.lenient`).
    """

    __slots__ = ("base", "bounds", "items", "reference")

    def __init__(
        self, base: Any, *, items: Kind | None = None, reference: bool = False, **bounds: Any
    ) -> None:
        unknown = set(bounds) - set(KIND_BOUNDS)
        if unknown:
            raise TypeError(f"Kind takes no bound {', '.join(sorted(unknown))}")
        self.base = base
        self.bounds: Mapping[str, Any] = {key: bounds[key] for key in KIND_BOUNDS if key in bounds}
        self.items = items
        self.reference = reference


class _Required:
    """The default of a parameter the caller must give."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Param:
    """One tool parameter: its name, type (or `Kind`) and default together.

    `query=False` marks a parameter only the projection reads (a display limit,
    say); every other parameter is passed to the query function by name.
    """

    name: str
    type: Any
    default: Any = REQUIRED
    query: bool = True

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def reference(self) -> bool:
        return isinstance(self.type, Kind) and self.type.reference


# MCP's defaults for a hint that is left out; see `hints`.
_HINT_DEFAULTS = {
    "read_only_hint": False,
    "destructive_hint": True,
    "idempotent_hint": False,
    "open_world_hint": True,
}
_WRITE_HINTS = ("destructive_hint", "idempotent_hint")  # meaningful only when not read-only


def hints(
    *, read_only: bool, destructive: bool = True, idempotent: bool = False, open_world: bool = True
) -> Mapping[str, bool]:
    """A local tool's MCP annotations, only those MCP's defaults do not already say
    (`unsaid`). (The hosted tools keep the four hints they advertise: `READ_ONLY`.)"""
    return unsaid(
        {
            "read_only_hint": read_only,
            "destructive_hint": destructive,
            "idempotent_hint": idempotent,
            "open_world_hint": open_world,
        }
    )


def unsaid(given: Mapping[str, bool]) -> dict[str, bool]:
    """The hints of `given` that MCP's defaults do not already say.

    Each byte of `tools/list` is paid in every conversation: a hint equal to its
    default, or a write hint on a read-only tool, means nothing more when sent. So
    the compact profile sends every tool's hints so (the hosted tools' `READ_ONLY` as
    `readOnlyHint` alone, 67 bytes less a tool); the hosted profile sends them as given.
    """
    read_only = given.get("read_only_hint", False)
    return {
        name: value
        for name, value in given.items()
        if value != _HINT_DEFAULTS[name] and not (read_only and name in _WRITE_HINTS)
    }


# Every hosted tool only reads a public catalog on the open web.
READ_ONLY: Mapping[str, bool] = {
    "read_only_hint": True,
    "destructive_hint": False,
    "idempotent_hint": True,
    "open_world_hint": True,
}
# The reading tools read the catalog on the web, or what is saved from it.
LOCAL_READ = hints(read_only=True)
LIBRARY_READ = hints(read_only=True, open_world=False)  # only what is on this machine


@dataclass(frozen=True)
class Tool:
    """One tool as its callers see it; `hints` are its MCP annotations (snake_case)."""

    name: str
    group: Group
    params: tuple[Param, ...]
    description: str
    hints: Mapping[str, bool] = field(default_factory=lambda: READ_ONLY)


# -- parameter types shared by several tools (type, bounds and description once) ----------

Page = Kind(int, ge=1, le=100)
Limit = Kind(int, ge=1, le=MAX_ROWS)
OptionalLimit = Kind(int | None, ge=1, le=MAX_ROWS)
Reference = Kind(
    str,
    min_length=1,
    max_length=MAX_REFERENCE_CHARS,
    description="arXiv ID, catalog ID, paper URL or exact title",
    reference=True,
)
# The local tools' paper (or watch target): the hosted tools' `paper` says what it takes,
# so these do not repeat it in every listing.
LocalReference = Kind(str, min_length=1, max_length=MAX_REFERENCE_CHARS, reference=True)
Query = Kind(str, min_length=1, max_length=MAX_TEXT_CHARS)
Filter = Kind(str | None, max_length=MAX_TEXT_CHARS)  # a search or a name filtered by
Entity = Kind(
    str,
    min_length=1,
    max_length=MAX_TEXT_CHARS,
    description="exact name, slug or ID",
    reference=True,
)
Name = Kind(str, max_length=MAX_NAME_CHARS)
IsoDate = Kind(str | None, max_length=10, description="YYYY-MM-DD, inclusive")
AuthorList = Kind(
    list[str] | None,
    items=Name,
    max_length=10,
    description="exact author names, numeric author IDs or @HF_USERNAME; all must match",
)
ResourceLimit = Kind(int, ge=1, le=10)
Direction = Literal["asc", "desc"]
ParameterSize = Kind(
    str | None,
    max_length=32,
    description="inclusive model size cap such as 500M, 1.5B or 3000000000",
)
# The local tools' max_parameters: get_benchmark's describes it; theirs do not repeat it.
LocalParameterSize = Kind(str | None, max_length=32)
MetricNames = Kind(list[str] | None, items=Name, min_length=1)
MetricBounds = Kind(
    dict[str, float] | None,
    items=Name,
    description="metric name -> inclusive threshold",
)
SortMetric = Kind(
    str | None,
    max_length=MAX_NAME_CHARS,
    description="METRIC, METRIC:asc or METRIC:desc (default desc)",
)
Pareto = Kind(
    list[str] | None,
    items=Name,
    min_length=2,
    description="two or more METRIC:higher / METRIC:lower objectives",
)
SectionName = Kind(
    str,
    min_length=1,
    max_length=MAX_TEXT_CHARS,
    description="section id from get_paper_outline, or heading",
)
Cursor = Kind(
    str | None,
    max_length=MAX_CURSOR_CHARS,
    description="next_cursor of the previous read_paper result",
)
LookCursor = Kind(str | None, max_length=64)  # the description says: pass next_cursor as cursor


def board_filters(size: Kind = LocalParameterSize) -> tuple[Param, Param]:
    """`get_benchmark`'s model filters, `is_open` and `max_parameters`, as each tool reading
    a leaderboard takes them (`size`: get_benchmark's described kind, or the local one)."""
    return Param("is_open", bool | None, None), Param("max_parameters", size, None)


_PAPER = "paper = arXiv ID, catalog ID, arXiv/Hugging Face/Papers With Code URL, or exact title."


def hosted(name: str, description: str, *params: Param) -> Tool:
    """A tool of the hosted server (its read-only hints)."""
    return Tool(name, "hosted", params, description)


def _lookup(name: str, noun: str, description: str) -> Tool:
    """A hosted tool finding one `noun` (its one parameter) by exact name, slug or ID."""
    return hosted(name, description, Param(noun, Entity))


def local(
    name: str, group: Group, description: str, *params: Param, hints: Mapping[str, bool]
) -> Tool:
    """A local addition: its group and the MCP hints it sends."""
    return Tool(name, group, params, description, hints)


TOOLS: tuple[Tool, ...] = (
    # -- papers ---------------------------------------------------------------------------
    hosted(
        "search_papers",
        (
            "Search papers by title, topic, author or arXiv ID, for broad discovery. For best / "
            "state-of-the-art questions start with get_task, list_benchmarks and get_benchmark "
            "instead. mode keyword suits exact terminology and avoids the semantic-search rate "
            "limit."
        ),
        Param("query", Query),
        Param("mode", Literal["hybrid", "keyword", "semantic"], "hybrid"),
        Param("page", Page, 1),
        Param("limit", Limit, 10),
        Param("published_after", IsoDate, None),
        Param("published_before", IsoDate, None),
        Param("has_official_implementation", bool, False),
    ),
    hosted(
        "get_paper_info",
        (
            "Compact metadata of one paper; its code list starts with official repositories. "
            "include_resources adds other repositories, project pages and Hugging Face "
            "artifacts; repo_limit caps each list; include_evaluations is legacy. Papers outside "
            "the catalog are answered from public metadata (in_catalog=false, note, available_at "
            "links to cite instead of a Papers With Code page). " + _PAPER
        ),
        Param("paper", Reference),
        Param("include_resources", bool, False, query=False),
        Param("repo_limit", ResourceLimit, 5, query=False),
        Param("include_evaluations", bool, False),
    ),
    hosted(
        "get_paper_evaluations",
        (
            "One page of a paper's benchmark results with protocol, source, openness and "
            "task-scoped ranks. " + _PAPER
        ),
        Param("paper", Reference),
        Param("page", Page, 1),
        Param("limit", Limit, 20),
    ),
    hosted(
        "read_paper",
        (
            "Stored Markdown of a paper, in chunks: while truncated, call again with the same "
            "paper and the last next_cursor; omit cursor to start over. Papers outside the "
            "catalog get a short public-metadata page (in_catalog=false). " + _PAPER
        ),
        Param("paper", Reference),
        Param("cursor", Cursor, None),
    ),
    hosted(
        "list_papers",
        (
            "List papers filtered by exact catalog associations (task, method, conference, "
            "framework, organization, authors, dates) in a deterministic order."
        ),
        Param("search", Filter, None),
        Param("task", Filter, None),
        Param("method", Filter, None),
        Param("conference", Filter, None),
        Param("framework", Filter, None),
        Param("organization", Filter, None),
        Param("authors", AuthorList, None),
        Param("published_after", IsoDate, None),
        Param("published_before", IsoDate, None),
        Param("all_versions", bool, False),
        Param("order_by", Literal["trending", "date_published", "citation_count"], "trending"),
        Param("order_direction", Direction, "desc"),
        Param("include_resources", bool, False),
        Param("has_official_implementation", bool, False),
        Param("page", Page, 1),
        Param("limit", Limit, 20),
    ),
    hosted(
        "list_recent_papers",
        "Papers most recently added to the catalog.",
        Param("limit", Limit, 10),
    ),
    hosted(
        "list_trending_papers",
        "Trending papers, ranked by repository velocity.",
        Param("limit", Limit, 20),
        Param("max_age_days", Kind(int, ge=1, le=365), 180),
        Param("min_velocity", float | None, None),
    ),
    hosted(
        "get_related_papers",
        (
            "Catalog papers related to one paper. For a paper outside the catalog: catalog "
            "search hits for its public title, with a note and available_at links. " + _PAPER
        ),
        Param("paper", Reference),
        Param("limit", Kind(int, ge=1, le=20), 4),
    ),
    hosted(
        "get_paper_lineage",
        "Predecessor and successor papers the catalog links explicitly to one paper. " + _PAPER,
        Param("paper", Reference),
    ),
    # -- taxonomy ---------------------------------------------------------------------------
    hosted(
        "get_task",
        (
            "One task by exact name, slug or ID: hierarchy and its benchmarks ranked by trend. "
            "Start here for best / state-of-the-art questions, then call get_benchmark."
        ),
        Param("task", Entity),
        Param("benchmark_limit", ResourceLimit, 10, query=False),
    ),
    hosted(
        "list_tasks",
        (
            "List or filter research tasks, or (group_by_area) the visible top-level taxonomy "
            "grouped by area."
        ),
        Param("search", Filter, None),
        Param("area", Filter, None),
        Param("level", int | None, None),
        Param("visible_only", bool, False),
        Param("group_by_area", bool, False),
        Param("order_by", Literal["name", "created_at", "level", "paper_count"], "name"),
        Param("order_direction", Direction, "asc"),
        Param("page", Page, 1),
        Param("limit", OptionalLimit, None),
    ),
    _lookup("get_method", "method", "One method by name, full name, slug, ID or common alias."),
    hosted(
        "list_methods",
        "List or filter methods.",
        Param("search", Filter, None),
        Param("area", Filter, None),
        Param("introduced_year", int | None, None),
        Param(
            "order_by",
            Literal["name", "full_name", "introduced_year", "created_at", "paper_count"],
            "name",
        ),
        Param("order_direction", Direction, "asc"),
        Param("page", Page, 1),
        Param("limit", Limit, 25),
    ),
    _lookup("get_conference", "conference", "One conference by exact name, slug or ID."),
    hosted(
        "list_conferences",
        "Conferences with imported papers, optionally for one year.",
        Param("year", int | None, None),
    ),
    _lookup("get_organization", "organization", "One organization by exact name, slug or ID."),
    hosted(
        "list_organizations",
        "List organizations; featured_only keeps curated featured ones.",
        Param("featured_only", bool, False),
    ),
    _lookup("get_framework", "framework", "One framework by exact name, slug or ID."),
    hosted(
        "list_frameworks",
        "List frameworks, filtered by domain, category or platform.",
        Param("domain", Filter, None),
        Param("category", Filter, None),
        Param("platform", Filter, None),
    ),
    # -- benchmarks -------------------------------------------------------------------------
    hosted(
        "get_benchmark",
        (
            "One benchmark by exact name with its leaderboard. max_parameters (e.g. 4B) drops "
            "larger models; sort_metric orders rows; require_metrics, minimum_metrics, "
            "maximum_metrics and pareto select rows; matched_count counts selected rows before "
            "limit. Metric names match case-insensitively, via aliases (AP/mAP, top1/Accuracy, "
            "AUROC/AUC, Pass@1/Pass Rate) or a unique containing name; an unknown metric "
            "returns the unfiltered leaderboard with metric_note listing the real metrics."
        ),
        Param("benchmark", Entity),
        Param("page", Page, 1),
        Param("limit", Limit, 20),
        *board_filters(ParameterSize),
        Param("require_metrics", MetricNames, None),
        Param("minimum_metrics", MetricBounds, None),
        Param("maximum_metrics", MetricBounds, None),
        Param("sort_metric", SortMetric, None),
        Param("pareto", Pareto, None),
    ),
    hosted(
        "list_benchmarks",
        (
            "Benchmarks: a task's benchmarks in trend order (task), a filtered listing, or "
            "grouped by area and task (group_by_area, area). Trend order needs task; area is "
            "ignored with other filters. Then open the most relevant leaderboard with "
            "get_benchmark."
        ),
        Param("search", Filter, None),
        Param("task", Filter, None),
        Param("include_descendants", bool, False),
        Param("minimum_evaluations", int | None, None),
        Param("is_open", bool | None, None),
        Param("group_by_area", bool, False),
        Param("area", Filter, None),
        Param("benchmarks_per_task", ResourceLimit, 3),
        Param(
            "order_by",
            Literal["trending", "name", "full_name", "created_at", "paper_count"] | None,
            None,
        ),
        Param("order_direction", Direction, "asc"),
        Param("page", Page, 1),
        Param("limit", OptionalLimit, None),
    ),
    # -- the reading library (local additions; tools=hosted leaves them out) -------------
    local(
        "save_papers",
        "library",
        (
            "Keep papers (metadata, Markdown, citation) on this machine until removed, for "
            "read_paper, get_paper_info and search_library offline."
        ),
        Param(
            "papers",
            Kind(list[str], items=LocalReference, min_length=1, max_length=MAX_SAVE),
        ),
        hints=hints(read_only=False, destructive=False, idempotent=True),
    ),
    local(
        "list_library",
        "library",
        "Saved papers, newest first.",
        Param("page", Page, 1),
        Param("limit", Limit, 10),
        hints=LIBRARY_READ,
    ),
    local(
        "search_library",
        "library",
        (
            "Offline full-text search of saved and previously read papers: hits with section, "
            "quote and read_paper cursor; paper limits it to one."
        ),
        Param("query", Query),
        Param("limit", Limit, SEARCH_LIBRARY_LIMIT),
        Param("paper", Kind(str | None, max_length=MAX_REFERENCE_CHARS), None),
        hints=LIBRARY_READ,
    ),
    # -- reading (local additions: read less, cite more) ------------------------------------
    local(
        "get_paper_outline",
        "reading",
        ("A paper's section tree (id, heading, size) for read_paper_section."),
        Param("paper", LocalReference),
        Param("depth", Kind(int, ge=1, le=6, description="heading levels below the title"), 2),
        hints=LOCAL_READ,
    ),
    local(
        "read_paper_section",
        "reading",
        (
            "One section of a paper's Markdown with its subsections; if truncated, read_paper "
            "with next_cursor reads on."
        ),
        Param("paper", LocalReference),
        Param("section", SectionName),
        # 8 KiB: what every client tried hands the model whole (docs/benchmarks.md).
        Param("max_bytes", Kind(int, ge=1024, le=CHUNK_BYTES), 8192),
        hints=LOCAL_READ,
    ),
    local(
        "cite_paper",
        "reading",
        ("A paper's citation in BibTeX, RIS or CSL-JSON, also outside the catalog (by DOI)."),
        Param("paper", LocalReference),
        Param("format", CitationFormat, "bibtex"),
        hints=LOCAL_READ,
    ),
    # -- the watch list (local additions): what changed since the last look ------------------
    #
    # Both ask the live catalog on the web (open world) and write the local list, so
    # neither is read-only. `watch` may delete (remove=true drops a watch and its baseline:
    # destructive), and repeating a call changes nothing more (idempotent). `whats_new`
    # only moves the "last look" marks (not destructive), but is not idempotent: a retry
    # after a lost answer would find the changes already marked seen.
    local(
        "watch",
        "watch",
        (
            "Watch a benchmark, task, paper, author or search (query) for whats_new; target "
            "as its tool takes it. Returns the watch list."
        ),
        Param("kind", WatchKind),
        Param("target", LocalReference),
        Param("remove", bool, False),
        hints=hints(read_only=False, destructive=True, idempotent=True),
    ),
    local(
        "whats_new",
        "watch",
        (
            "What changed on each watch since the last look (results, leaders, papers, "
            "versions). mark_seen=false: the next call answers the same. Pages: pass "
            "next_cursor as cursor."
        ),
        Param("mark_seen", bool, True),
        Param("cursor", LookCursor, None),
        hints=hints(read_only=False, destructive=False, idempotent=False),
    ),
    # -- leaderboards through time (local additions): whole leaderboards by paper date -------
    local(
        "sota_history",
        "history",
        "Each new best on a benchmark by paper date, with its gain; as_of: the best then.",
        Param("benchmark", LocalReference),
        # "" (a shorter schema than null): the leaderboard's primary metric; no date bound
        Param("metric", Name, ""),
        Param("as_of", Kind(str, max_length=10), ""),
        *board_filters(),
        Param("extra_data", bool | None, None),
        hints=LOCAL_READ,
    ),
    local(
        "who_beat_paper",
        "history",
        "Later results that beat a paper, per benchmark and metric, with margins.",
        Param("paper", LocalReference),
        hints=LOCAL_READ,
    ),
    local(
        "results_table",
        "history",
        (
            "Rows to cite with BibTeX: one settings group (extra data, split, shots, protocol) "
            "or all."
        ),
        Param("benchmark", LocalReference),
        Param("metrics", Kind(list[str], items=Name), []),
        Param("settings", Name, ""),
        Param("format", TableFormat, "markdown", query=False),
        Param("as_of", Kind(str, max_length=10), ""),
        Param("papers", Kind(list[str], items=Kind(str, max_length=MAX_REFERENCE_CHARS)), []),
        *board_filters(),
        Param("limit", Kind(int, ge=1, le=MAX_TABLE_ROWS), 10),
        hints=LOCAL_READ,
    ),
    local(
        "check_claim",
        "history",
        ("Check a claim: paper was best (as_of), beats another or reports value."),
        Param("benchmark", LocalReference),
        Param("paper", LocalReference),
        Param("beats", Kind(str, max_length=MAX_REFERENCE_CHARS), ""),
        Param("value", float | None, None),
        Param("metric", Name, ""),
        Param("as_of", Kind(str, max_length=10), ""),
        hints=LOCAL_READ,
    ),
)

BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}


def names(*groups: Group) -> tuple[str, ...]:
    """Tool names in listing order, of the given groups (all groups when none is given)."""
    return tuple(tool.name for tool in TOOLS if not groups or tool.group in groups)


def query_defaults(name: str) -> dict[str, Any]:
    """Tool `name`'s declared defaults of what its query function takes, for a query
    that calls another's function (the query functions state no defaults of their own)."""
    return {p.name: p.default for p in BY_NAME[name].params if p.query and not p.required}
